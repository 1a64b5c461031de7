"""attribute(): the `jouleprof attribute` job, through the C API's jp_attribute."""

import json

from . import _native

_lib = _native.lib


def attribute(samples_path, output_path, trace_path=None, **options):
    """Charges a recording's energy readings to its spans and writes the attributed profile to
    output_path (returned). samples_path: a profile.json (a Monitor's, `jouleprof run`'s: its
    series, run window, clock anchor, and its own spans when trace_path is None), a jouleprof
    samples.csv or an NVML poll log. trace_path: a PyTorch profiler / Kineto, TensorFlow or Chrome
    trace, or a jouleprof span dump. The keyword options are jp_attribute's (include/jouleprof/
    jouleprof.h): method, classes, calibration, idle_power_w, window, meta, channel_devices,
    split_passes, trace_offset_ns. The command line, the C API and this give the same profile for
    the same recording; JouleprofError names the file, field and value of bad input."""
    _native.check(_lib.jp_attribute(_native.encode(samples_path), _native.encode(trace_path),
                                    _native.encode(output_path), json.dumps(options).encode()))
    return output_path
