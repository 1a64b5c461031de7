"""Reports of a written profile through libjouleprof's writers (the same as `jouleprof report`)."""

import ctypes
import json
import os

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


def format_tree(profile_path, max_depth=-1, max_rows=None, max_children=None, min_share=0.0):
    """The profile's tree as the text table `jouleprof attribute` prints."""
    options = {"max_depth": int(max_depth), "min_share": float(min_share)}
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
