"""measure(): a Python function's energy per call, by FECoM's gated protocol, with progress.

    def show(p):                       # a ProgressEvent, on the measuring thread
        print(p.phase, p.step, p.steps, p.gate_channel, p.eta_s)

    r = jouleprof.measure(lambda: model(x), preset="quick", progress=show)
    print(r.net_j, "J per call above idle,", r.repetitions, "repetitions")

Returning True from the progress function (or pressing Ctrl-C, which raises in it) stops the
measurement at its next checkpoint; the repetitions finished are kept and `incomplete` is set.
"""

import ctypes
import dataclasses
import json

from . import _native

_lib = _native.lib

PROGRESS_KINDS = {0: "begin", 1: "item", 2: "step", 3: "phase", 4: "gate", 5: "tick", 6: "end"}


@dataclasses.dataclass(frozen=True)
class ProgressEvent:
    """One progress event (jp_progress): where the work is, the gate's state, elapsed and ETA."""

    kind: str
    task: str
    item: int
    items: int
    item_name: str
    step: int
    steps: int
    phase: str
    gate_channel: str  # "" when the gate is not being checked
    gate_value: float  # its CV, or its temperature in °C
    gate_threshold: float  # the CV threshold, or the temperature cap
    gate_temperature: bool
    gate_passed: bool
    elapsed_s: float
    eta_s: float  # None when not known
    done: float

    @classmethod
    def of(cls, p):
        text = _native.decode
        return cls(PROGRESS_KINDS.get(p.kind, str(p.kind)), text(p.task), p.item, p.items,
                   text(p.item_name), p.step, p.steps, text(p.phase),
                   text(p.gate_channel) if p.has_gate else "", p.gate_value, p.gate_threshold,
                   bool(p.gate_temperature), bool(p.gate_passed), p.elapsed_ns * 1e-9,
                   None if p.eta_ns < 0 else p.eta_ns * 1e-9, p.done)


@dataclasses.dataclass(frozen=True)
class GatedMeasurement:
    """Per call, over the repetitions measured; energies are the top-level channels' sum.
    total_low_j … net_high_j bound the 95 % intervals of total_j and net_j (the repetitions'
    Student-t interval with each source's gain error); uncertainty_dominant names the term that
    dominates net_j's (docs/uncertainty.md)."""

    repetitions: int
    repetitions_asked: int
    total_j: float
    net_j: float
    net_stdev_j: float
    call_s: float
    estimate_s: float
    took_s: float
    incomplete: bool
    profile_path: str
    total_low_j: float = None
    total_high_j: float = None
    net_low_j: float = None
    net_high_j: float = None
    uncertainty_dominant: str = None


def measure(fn, preset="standard", progress=None, sources=None, settings=None, profile_path=None,
            sysfs_root=None, **gate):
    """Measures fn() with the gated protocol (docs/measure.md).

    preset: fecom | standard | quick | kernel; gate: overrides of the preset (repetitions,
    warmup, last_n, min_updates, interval_ms, check_period_s, gate_timeout_s, tail_wait_s,
    tolerance). progress: called with a ProgressEvent; a true return value asks for a stop.
    An exception in fn ends the measurement (kept in part); one in progress stops it and is
    raised again once the measurement has ended.
    """
    options = dict(gate, preset=preset)
    if settings:
        options["settings"] = dict(settings)
    if sysfs_root is not None:
        options["sysfs_root"] = str(sysfs_root)
    raised = []

    def call(_user):
        try:
            fn()
            return 0
        except BaseException as e:  # noqa: BLE001 - carried across the C boundary
            raised.append(e)
            return 1

    def report(p, _user):
        try:
            return 1 if progress(ProgressEvent.of(p.contents)) else 0
        except BaseException as e:  # noqa: BLE001 - Ctrl-C included: it stops the measurement
            raised.append(e)
            return 1

    c_call = _native.MEASURED_FN(call)
    c_progress = _native.PROGRESS_FN(report) if progress is not None else _native.PROGRESS_FN()
    result = _native.GatedResult()
    status = _lib.jp_measure_gated(_native.encode(sources), json.dumps(options).encode(), c_call,
                                   None, c_progress, None, _native.encode(profile_path),
                                   ctypes.byref(result))
    if raised:
        raise raised[0]
    _native.check(status)
    return GatedMeasurement(result.repetitions, result.repetitions_asked, result.total_j,
                            result.net_j, result.net_stdev_j, result.call_s,
                            result.estimate_ns * 1e-9, result.took_ns * 1e-9,
                            bool(result.incomplete),
                            None if profile_path is None else str(profile_path),
                            result.total_low_j, result.total_high_j, result.net_low_j,
                            result.net_high_j, _native.decode(result.uncertainty_dominant))
