"""Loading libjouleprof.so and declaring the C API's prototypes (see include/jouleprof/jouleprof.h).

The library is looked for, in order: the path in $JOULEPROF_LIBRARY; libjouleprof.so next to this
package (the wheel's layout); ../lib/libjouleprof.so beside the `jouleprof` executable found on
PATH (a build or install tree); build/lib/libjouleprof.so of the source tree this package sits in.
"""

import atexit
import ctypes
import os
import sys
import shutil
from pathlib import Path

# Fixed values of jp_error (= jouleprof::ErrorCode).
ERROR_NAMES = {
    1: "invalid input",
    2: "not found",
    3: "permission denied",
    4: "unavailable",
    5: "i/o error",
    6: "unsupported",
    7: "internal error",
    8: "interrupted",
}

# jp_category values.
CATEGORIES = {
    "region": 0, "model": 1, "layer": 2, "op": 3, "kernel": 4,
    "step": 5, "epoch": 6, "call": 7, "memory": 8,
}

INVALID_NAME = 0xFFFFFFFF


class JouleprofError(RuntimeError):
    """A failed C API call: `code` is the jp_error value, the message says what and where."""

    def __init__(self, code, message):
        super().__init__(f"{message} ({ERROR_NAMES.get(code, 'error')} {code})")
        self.code = code


class SizedStructure(ctypes.Structure):
    """A result struct versioned by size (docs/capi.md, "Result structs"): its first field, size,
    holds sizeof of the struct as this module declares it, so the library writes only those."""

    def __init__(self):
        super().__init__(size=ctypes.sizeof(type(self)))


class Totals(SizedStructure):
    """jp_totals: what one monitored run measured (top-level channels only)."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("energy_j", ctypes.c_double),
        ("duration_s", ctypes.c_double),
        ("mean_power_w", ctypes.c_double),
        ("spans", ctypes.c_uint64),
        ("energy_low_j", ctypes.c_double),
        ("energy_high_j", ctypes.c_double),
        ("uncertainty_dominant", ctypes.c_char_p),
        ("steps", ctypes.c_uint64),
        ("step_energy_j", ctypes.c_double),
        ("step_low_j", ctypes.c_double),
        ("step_high_j", ctypes.c_double),
    ]

    def __repr__(self):
        return (f"Totals(energy_j={self.energy_j:.6g}, duration_s={self.duration_s:.6g}, "
                f"mean_power_w={self.mean_power_w:.6g}, spans={self.spans})")


class Progress(ctypes.Structure):
    """jp_progress: one progress event of long work (include/jouleprof/jouleprof.h)."""

    _fields_ = [
        ("kind", ctypes.c_int),
        ("task", ctypes.c_char_p),
        ("item", ctypes.c_uint64),
        ("items", ctypes.c_uint64),
        ("item_name", ctypes.c_char_p),
        ("step", ctypes.c_uint64),
        ("steps", ctypes.c_uint64),
        ("phase", ctypes.c_char_p),
        ("has_gate", ctypes.c_int),
        ("gate_channel", ctypes.c_char_p),
        ("gate_value", ctypes.c_double),
        ("gate_threshold", ctypes.c_double),
        ("gate_temperature", ctypes.c_int),
        ("gate_passed", ctypes.c_int),
        ("gate_checks", ctypes.c_uint32),
        ("gate_waited_ns", ctypes.c_int64),
        ("elapsed_ns", ctypes.c_int64),
        ("eta_ns", ctypes.c_int64),
        ("estimate_ns", ctypes.c_int64),
        ("done", ctypes.c_double),
    ]


class GatedResult(SizedStructure):
    """jp_gated_result: per call, over the repetitions measured (top-level channels summed)."""

    _fields_ = [
        ("size", ctypes.c_uint32),
        ("repetitions", ctypes.c_uint64),
        ("repetitions_asked", ctypes.c_uint64),
        ("total_j", ctypes.c_double),
        ("net_j", ctypes.c_double),
        ("net_stdev_j", ctypes.c_double),
        ("call_s", ctypes.c_double),
        ("estimate_ns", ctypes.c_int64),
        ("took_ns", ctypes.c_int64),
        ("incomplete", ctypes.c_int),
        ("total_low_j", ctypes.c_double),
        ("total_high_j", ctypes.c_double),
        ("net_low_j", ctypes.c_double),
        ("net_high_j", ctypes.c_double),
        ("uncertainty_dominant", ctypes.c_char_p),
    ]


PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(Progress), ctypes.c_void_p)
MEASURED_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)

LIBRARY_NAME = "libjouleprof.so"


def _candidates():
    env = os.environ.get("JOULEPROF_LIBRARY")
    if env:
        yield Path(env)
        return
    here = Path(__file__).resolve().parent
    yield here / LIBRARY_NAME
    cli = shutil.which("jouleprof")
    if cli:
        yield Path(cli).resolve().parent.parent / "lib" / LIBRARY_NAME
    yield here.parent.parent / "build" / "lib" / LIBRARY_NAME


def _load():
    tried = []
    for path in _candidates():
        tried.append(str(path))
        if path.is_file():
            return ctypes.CDLL(str(path))
    raise OSError(f"{LIBRARY_NAME} not found (tried: {', '.join(tried)}); install the jouleprof "
                  "wheel (cmake --build build --target jouleprof_wheel writes it to build/wheel/), "
                  "build the jouleprof_shared target, or set JOULEPROF_LIBRARY to the library's "
                  "path")


lib = _load()

_c_str = ctypes.c_char_p
_status = ctypes.c_int


def _declare(name, restype, *argtypes):
    fn = getattr(lib, name)
    fn.restype = restype
    fn.argtypes = list(argtypes)


_declare("jp_last_error", _c_str)
_declare("jp_intern", ctypes.c_uint32, _c_str)
_declare("jp_begin", None, ctypes.c_uint32, ctypes.c_int)
_declare("jp_end", None)
_declare("jp_mark", None, ctypes.c_uint32)
_declare("jp_epoch_begin", None)
_declare("jp_epoch_end", None)
_declare("jp_recorder_enabled", ctypes.c_int)
_declare("jp_now_ns", ctypes.c_int64)
_declare("jp_monitor_start", _status, _c_str, _c_str, ctypes.POINTER(ctypes.c_void_p))
_declare("jp_monitor_warn", _status, ctypes.c_void_p, _c_str)
_declare("jp_monitor_cut_short", _status, ctypes.c_void_p, _c_str)
_declare("jp_monitor_stop", _status, ctypes.c_void_p, _c_str, ctypes.POINTER(Totals))
_declare("jp_attribute", _status, _c_str, _c_str, _c_str, _c_str)
_declare("jp_recorder_add_trace", _status, _c_str)
_declare("jp_recorder_flush_spans_file", _status)
_declare("jp_report", _status, _c_str, _c_str, _c_str)
_declare("jp_format_tree", _status, _c_str, _c_str, ctypes.POINTER(ctypes.c_char_p))
_declare("jp_write_samples", _status, _c_str, _c_str)
_declare("jp_measure_gated", _status, _c_str, _c_str, MEASURED_FN, ctypes.c_void_p, PROGRESS_FN,
         ctypes.c_void_p, _c_str, ctypes.POINTER(GatedResult))


# What the recorder writes its span dump to under `jouleprof run --spans` (docs/timeline.md).
SPANS_FILE_ENV = "JOULEPROF_SPANS_FILE"


def _flush_spans_file():
    # The library writes the span dump from a C exit handler, which never runs when Python ends
    # by re-raising SIGINT (an unhandled KeyboardInterrupt, Ctrl-C); Python's own exit handlers
    # do run then, before it.
    if lib.jp_recorder_flush_spans_file() != 0:
        print(f"jouleprof: could not write spans: {decode(lib.jp_last_error())}", file=sys.stderr)


if os.environ.get(SPANS_FILE_ENV):
    atexit.register(_flush_spans_file)


def encode(text):
    return None if text is None else os.fsencode(text) if isinstance(text, os.PathLike) else str(text).encode()


def decode(c_text):
    """A C string the library returned as text ("" for NULL)."""
    return c_text.decode(errors="replace") if c_text else ""


def check(status):
    """Raises JouleprofError for a non-zero jp_status, with this thread's jp_last_error()."""
    if status != 0:
        raise JouleprofError(status, lib.jp_last_error().decode(errors="replace"))
