"""Reports of a written profile through libjouleprof's writers (the same as `jouleprof report`)."""

import ctypes
import json
import os
import sys

from . import _native

_lib = _native.lib

# File name endings and the report format each writes (docs/python.md, "export").
FORMAT_OF_SUFFIX = {
    ".html": "html",
    ".htm": "html",
    ".svg": "flamegraph",
    ".csv": "csv",
    ".txt": "text",
    ".json": "json",
}


# Columns when the text goes neither to a terminal nor to a width given in $COLUMNS.
PIPE_COLUMNS = 100


def output_columns(stream=None):
    """The width text for `stream` (default: sys.stdout) is laid out to, as on the command line:
    $COLUMNS when it holds a positive number, else the terminal's width, else 100."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    stream = sys.stdout if stream is None else stream
    try:
        if stream.isatty():
            return os.get_terminal_size(stream.fileno()).columns
    except (AttributeError, OSError, ValueError):
        pass
    return PIPE_COLUMNS


def format_tree(profile_path, max_depth=4, max_rows=None, max_children=None, min_share=0.0,
                top=10, full=False, width=None):
    """The profile as `jouleprof attribute` prints it, through the same C++ renderer: the
    headline (total, duration, provenance), the `top` operators, the tree to `max_depth` levels
    with at most `max_children` children a node and `max_rows` rows (None: the command line's
    limits), warnings; `full` lifts every limit. Laid out to `width` columns (None:
    output_columns())."""
    options = {"max_depth": int(max_depth), "min_share": float(min_share), "top": int(top),
               "full": bool(full), "width": int(output_columns() if width is None else width)}
    if max_rows is not None:
        options["max_rows"] = int(max_rows)
    if max_children is not None:
        options["max_children"] = int(max_children)
    text = ctypes.c_char_p()
    _native.check(_lib.jp_format_tree(_native.encode(profile_path), json.dumps(options).encode(),
                                      ctypes.byref(text)))
    return text.value.decode("utf-8", errors="replace")


def write_report(profile_path, report_format, output_path):
    """Writes one report format (text, json, csv, trace, flamegraph, html) of the profile."""
    _native.check(_lib.jp_report(_native.encode(profile_path), _native.encode(report_format),
                                 _native.encode(output_path)))


def write_samples(profile_path, samples_path):
    """Writes the profile's measured series as samples.csv (`jouleprof attribute --samples`)."""
    _native.check(_lib.jp_write_samples(_native.encode(profile_path),
                                        _native.encode(samples_path)))


def report_format_for(path):
    """The report format a file name asks for, from its ending; ValueError when none fits."""
    suffix = os.path.splitext(os.fspath(path))[1].lower()
    if suffix not in FORMAT_OF_SUFFIX:
        raise ValueError(f"{os.fspath(path)}: cannot tell the format from {suffix!r}; use one of "
                         f"{', '.join(sorted(FORMAT_OF_SUFFIX))}")
    return FORMAT_OF_SUFFIX[suffix]
