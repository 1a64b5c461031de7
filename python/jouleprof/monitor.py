"""Monitor: measure the energy of a block of Python code, and attribute it to spans or traces."""

import ctypes
import dataclasses
import json
import os
import tempfile

from . import _native
from .attribute import attribute

_lib = _native.lib
_last_stopped = None  # the Monitor attribute_torch_trace() uses by default


@dataclasses.dataclass(frozen=True)
class Totals:
    """What one monitored run measured: top-level channels only (nested ones are never added).
    energy_j is the machine's; process_energy_j the observed processes' attributed share of it
    (None when no processes were observed or no counter has a per-process rule). energy_low_j and
    energy_high_j bound energy_j's 95 % interval; uncertainty_dominant names the term that
    dominates it (docs/uncertainty.md)."""

    energy_j: float
    duration_s: float
    mean_power_w: float
    spans: int
    process_energy_j: float = None
    energy_low_j: float = None
    energy_high_j: float = None
    uncertainty_dominant: str = None


def _process_energy_j(profile):
    """The observed processes' share of a profile's top-level channels (None without one)."""
    top_level = {s["channel"]["id"] for s in profile.get("series", [])
                 if not s["channel"].get("parent_id")}
    shares = [c["process_energy_j"] for c in profile.get("channels", [])
              if c["channel_id"] in top_level and "process_energy_j" in c]
    return sum(shares) if shares else None


class Monitor:
    """Samples energy sources from start to stop and writes a jouleprof profile.

        with jouleprof.Monitor(sources="simulated", settings={"simulate.watts": 40}) as m:
            with jouleprof.region("work"):
                ...
        print(m.totals.energy_j, m.profile_path)

    sources: comma-separated source names (`jouleprof sensors` lists them); None = the default
        set (every measured source found, else the CPU estimate).
    settings: backend settings, e.g. {"simulate.watts": 40} (docs/sources.md lists the keys).
    interval_ms: poll period of every source (default: each source's own).
    profile_path: where the profile JSON goes (default: a temporary file kept while this object
        lives).
    record_spans: record regions (and NVTX ranges) into the profile while running.
    attribute: attribute the samples to those spans when stopping.
    observe: whose share of every counter is figured beside the machine's: "self" (this
        process and its children, e.g. DataLoader workers), "none", {"pid": N} or
        {"cgroup": "PATH"} (docs/sharing.md).
    static_share: "cpu-time" (default), "none" or "all": how they get the idle part.
    """

    def __init__(self, sources=None, settings=None, interval_ms=None, profile_path=None,
                 record_spans=True, attribute=True, sysfs_root=None, observe="self",
                 static_share="cpu-time"):
        options = {"record_spans": bool(record_spans), "attribute": bool(attribute),
                   "observe": observe, "static_share": static_share}
        if settings:
            options["settings"] = dict(settings)
        if interval_ms is not None:
            options["interval_ms"] = float(interval_ms)
        if sysfs_root is not None:
            options["sysfs_root"] = str(sysfs_root)
        self._sources = sources
        self._options = json.dumps(options)
        self._handle = None
        self._tempdir = None
        if profile_path is None:
            self._tempdir = tempfile.TemporaryDirectory(prefix="jouleprof-")
            profile_path = os.path.join(self._tempdir.name, "profile.json")
        self.profile_path = os.fspath(profile_path)
        self.totals = None

    def start(self):
        if self._handle is not None or self.totals is not None:
            raise RuntimeError("a Monitor is started once")
        handle = ctypes.c_void_p()
        _native.check(_lib.jp_monitor_start(_native.encode(self._sources), self._options.encode(),
                                            ctypes.byref(handle)))
        self._handle = handle
        return self

    def _running_handle(self, what):
        if self._handle is None:
            raise RuntimeError(f"{what}: the Monitor is not running")
        return self._handle

    def warn(self, warning):
        """Adds `warning` to the profile stop() writes: what the measured code knows of its run
        and the samples cannot show."""
        _native.check(_lib.jp_monitor_warn(self._running_handle("warn()"),
                                           _native.encode(warning)))

    def cut_short(self, reason):
        """Marks the profile stop() writes partial (meta.partial: the work ended early, by an
        exception or an interrupt, so the figures cover it until then), with `reason` among its
        warnings."""
        _native.check(_lib.jp_monitor_cut_short(self._running_handle("cut_short()"),
                                                _native.encode(reason)))

    def stop(self):
        """Stops sampling, writes the profile and returns the Totals."""
        global _last_stopped
        if self._handle is None:
            raise RuntimeError("the Monitor is not running")
        totals = _native.Totals()
        handle, self._handle = self._handle, None  # jp_monitor_stop releases it in every case
        _native.check(_lib.jp_monitor_stop(handle, _native.encode(self.profile_path),
                                           ctypes.byref(totals)))
        self.totals = Totals(totals.energy_j, totals.duration_s, totals.mean_power_w, totals.spans,
                             _process_energy_j(self.profile()), totals.energy_low_j,
                             totals.energy_high_j, _native.decode(totals.uncertainty_dominant))
        _last_stopped = self
        return self.totals

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        if self._handle is not None:
            self.stop()
        return False

    def profile(self):
        """The written profile as a dict (docs/schema.md)."""
        with open(self.profile_path, encoding="utf-8") as f:
            return json.load(f)

    def tree(self):
        """The run's own energy tree (from its regions), or None when nothing was attributed."""
        return self.profile().get("tree")

    def attribute_trace(self, trace_path, output_path=None, method=None, window="run"):
        """Attributes this run's samples to the spans of a trace (PyTorch profiler / Kineto,
        TensorFlow, any Chrome trace, a jouleprof span dump) and returns the energy tree as
        nested dicts: name, category, energy_j, self_energy_j, time_ns, calls, children, …
        With window="run" the tree sums to the run's measured total ([unattributed] holds the
        energy outside every span). The importer maps the trace's clock (docs/timeline.md): with
        its clock_sync scope (module_scopes leaves one), else with its realtime base; a trace that
        does not fall inside the run raises JouleprofError naming both windows."""
        if self.totals is None:
            raise RuntimeError("stop the Monitor before attributing a trace to its samples")
        if output_path is None:
            output_path = os.path.splitext(self.profile_path)[0] + ".attributed.json"
        options = {"window": window}
        if method is not None:
            options["method"] = method
        attribute(self.profile_path, output_path, trace_path, **options)
        with open(output_path, encoding="utf-8") as f:
            return json.load(f)["tree"]


def attribute_torch_trace(trace_path, monitor=None, **kwargs):
    """Attributes a PyTorch profiler trace (torch.profiler ... export_chrome_trace) with the
    samples of `monitor` (default: the Monitor stopped last) and returns the per-module energy
    tree as nested dicts. See Monitor.attribute_trace for the keyword arguments."""
    monitor = monitor if monitor is not None else _last_stopped
    if monitor is None:
        raise RuntimeError("no Monitor has been stopped yet: measure the traced code under one")
    return monitor.attribute_trace(trace_path, **kwargs)
