"""jouleprof for Python: a thin ctypes layer over libjouleprof.so's C API (no compiled extension).

    import jouleprof
    with jouleprof.Monitor() as m:            # default energy sources of this machine
        with jouleprof.region("train"):
            train()
    print(m.totals)                          # energy_j, duration_s, mean_power_w, spans

docs/python.md describes the package; the C API it wraps is include/jouleprof/jouleprof.h.
"""

from ._native import JouleprofError
from .monitor import Monitor, Totals, attribute_torch_trace
from .regions import epoch_end, mark, now_ns, recording, region
from .torch_modules import clock_sync, module_scopes

__all__ = [
    "JouleprofError",
    "Monitor",
    "Totals",
    "attribute_torch_trace",
    "clock_sync",
    "epoch_end",
    "mark",
    "module_scopes",
    "now_ns",
    "recording",
    "region",
]
