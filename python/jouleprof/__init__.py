"""jouleprof for Python: a thin ctypes layer over libjouleprof.so's C API (no compiled extension).

    import jouleprof.torch
    with jouleprof.torch.profile(model) as prof:      # energy per module, backward included
        train()                                       # calling prof.step() after each step
    print(prof.table())

    import jouleprof
    r = jouleprof.measure(lambda: model(x), preset="quick", progress=print)  # FECoM's protocol
    with jouleprof.Monitor() as m:            # default energy sources of this machine
        with jouleprof.region("train"):
            train()
    print(m.totals)                          # energy_j, duration_s, mean_power_w, spans

docs/python.md describes the package; the C API it wraps is include/jouleprof/jouleprof.h.
"""

from ._native import JouleprofError
from .attribute import attribute
from .measure import GatedMeasurement, ProgressEvent, measure
from .monitor import Monitor, Totals, attribute_torch_trace
from .regions import epoch_begin, epoch_end, mark, now_ns, recording, region
from .repeated_energy import RepeatedEnergy
from .reports import format_tree, write_report, write_samples
from .torch_modules import clock_sync, module_scopes
from .tree import Node, node_from_dict

__all__ = [
    "GatedMeasurement",
    "JouleprofError",
    "Monitor",
    "Node",
    "ProgressEvent",
    "RepeatedEnergy",
    "Totals",
    "attribute",
    "attribute_torch_trace",
    "clock_sync",
    "epoch_begin",
    "epoch_end",
    "format_tree",
    "mark",
    "measure",
    "module_scopes",
    "node_from_dict",
    "now_ns",
    "recording",
    "region",
    "write_report",
    "write_samples",
]
