"""jouleprof.torch.profile: one context manager that measures a training (or inference) loop and
charges its energy to the model's modules, backward pass included."""

import json
import os
import shutil
import tempfile
import warnings

from .. import _native, regions, reports
from ..monitor import Monitor
from ..torch_modules import (
    EPOCH_BEGIN_SCOPE,
    EPOCH_END_SCOPE,
    ModuleScopes,
    clock_sync,
    mark,
    require_eager_module,
    scope_calls,
)
from ..repeated_energy import repeated_energy_from_dict
from ..tree import node_from_dict
from ._events_trace import write_events_trace

_lib = _native.lib

# What the recorder runs under when `jouleprof run --spans` started this process
# (docs/timeline.md, "Recording a child process").
SPANS_FILE_ENV = "JOULEPROF_SPANS_FILE"

STEP_PREFIX = "ProfilerStep#"


def _inside_jouleprof_run():
    return bool(os.environ.get(SPANS_FILE_ENV)) and _lib.jp_recorder_enabled() == 1


def _attach_note(exc, note):
    """Adds `note` to what the traceback of `exc` prints (BaseException.add_note, Python 3.11);
    older Pythons have no notes, so there it is a warning."""
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    else:
        warnings.warn(note, RuntimeWarning, stacklevel=3)


class profile:  # noqa: N801 (named like torch.profiler.profile, which it wraps)
    """Measures the block it guards and charges the energy to `model`'s modules.

        with jouleprof.torch.profile(model) as prof:
            for batch in loader:
                train_step(batch)
                prof.step()
        print(prof.table())

    On entry it starts the energy sources (a jouleprof Monitor), torch.profiler (CPU, plus CUDA
    when torch sees a GPU) and a scope per module (forward hooks). On exit it stops them, writes
    the profiler's trace with the autograd links and attributes the measured energy to it: every
    backward node goes under the module whose forward op created it, in a [backward] pass node;
    the optimizer's work is [optimizer].

    A block that raises (an error, Ctrl-C's KeyboardInterrupt) still stops, writes the trace and
    attributes what was recorded until then: the profile is marked partial (meta.partial) with a
    warning naming the exception, and the exception goes on. An epoch begun and not ended, and
    step() or the epoch marks called outside the block, warn.

    Inside `jouleprof run --spans -- python3 train.py` the profile joins the run instead: no
    sampler of its own; its trace goes into the run's timeline and the run's profile.json holds
    the one tree. tree() is then None and table() says where the tree is.

    model: the nn.Module whose modules to scope (None: operators only); a TorchScript module is
        refused (TypeError: pass the eager module), a TorchScript submodule gets no scopes of its
        own (a warning).
    sources, settings, interval_ms, sysfs_root: the Monitor's (jouleprof.Monitor).
    activities: torch.profiler activities (default: CPU, and CUDA when available).
    record_shapes, with_stack, profile_memory: passed to torch.profiler.profile.
    method: attribution method (auto, interpolate, hold, regress, calibrated, time-split).
    output_dir: where the profile, samples and trace are written (default: a temporary directory
        kept while this object lives).
    """

    def __init__(self, model=None, *, sources=None, settings=None, interval_ms=None,
                 sysfs_root=None, activities=None, record_shapes=False, with_stack=False,
                 profile_memory=False, method=None, output_dir=None):
        if model is not None:
            require_eager_module(model)
        self.model = model
        self._monitor_args = dict(sources=sources, settings=settings, interval_ms=interval_ms,
                                  sysfs_root=sysfs_root)
        self._torch_args = dict(activities=activities, record_shapes=record_shapes,
                                with_stack=with_stack, profile_memory=profile_memory)
        self._method = method
        self._tempdir = None
        if output_dir is None:
            self._tempdir = tempfile.TemporaryDirectory(prefix="jouleprof-torch-")
            output_dir = self._tempdir.name
        self.output_dir = os.fspath(output_dir)
        os.makedirs(self.output_dir, exist_ok=True)
        self.samples_profile_path = os.path.join(self.output_dir, "samples-profile.json")
        self.trace_path = os.path.join(self.output_dir, "trace.json")
        self.profile_path = os.path.join(self.output_dir, "profile.json")
        self.joined_run = False
        self.totals = None
        self._attributed = None
        self._monitor = None
        self._torch_profile = None
        self._scopes = None
        self._open_scope = self._close_scope = None
        self._step_scope = None  # the open step's handle
        self._steps = 0
        self._epochs_ended = 0
        self._epoch_open = False
        self._started = False
        self._inside = False
        self._attribution_error = None  # when the block raised and attributing failed too

    # ---- the measured block

    def __enter__(self):
        if self._started:
            raise RuntimeError("a jouleprof.torch.profile is entered once")
        self._started = True
        import torch  # noqa: PLC0415

        self._open_scope, self._close_scope = scope_calls()
        self.joined_run = _inside_jouleprof_run()
        if not self.joined_run:
            self._monitor = Monitor(profile_path=self.samples_profile_path, record_spans=False,
                                    attribute=False, **self._monitor_args)
            self._monitor.start()
        activities = self._torch_args["activities"]
        if activities is None:
            activities = [torch.profiler.ProfilerActivity.CPU]
            if torch.cuda.is_available():
                activities.append(torch.profiler.ProfilerActivity.CUDA)
        try:
            self._torch_profile = torch.profiler.profile(
                activities=activities, record_shapes=self._torch_args["record_shapes"],
                with_stack=self._torch_args["with_stack"],
                profile_memory=self._torch_args["profile_memory"])
            self._torch_profile.__enter__()
            clock_sync()
            if self.model is not None:
                self._scopes = ModuleScopes(self.model, on_root_forward=self._open_step)
        except BaseException:
            self._stop_measuring()
            raise
        self._inside = True
        return self

    def _inside_block(self, call):
        """True inside the `with` block; else warns, at the line that called `call`, that it
        marks nothing there."""
        if self._inside:
            return True
        when = "after" if self._started else "before"
        warnings.warn(f"jouleprof.torch.profile: {call} was called {when} the profile's `with` "
                      "block, where it marks nothing: call it inside the block", stacklevel=3)
        return False

    def step(self):
        """Ends the current training step; the next begins with the model's next forward."""
        if self._inside_block("step()"):
            self._close_step()

    def _close_step(self):
        if self._step_scope is not None:
            self._close_scope(self._step_scope)
            self._step_scope = None

    def epoch_begin(self):
        """Marks the start of an epoch: epoch 1 is counted from here (not from the start of the
        process), in the trace, in jouleprof's recorder and under `jouleprof run --epochs`."""
        if not self._inside_block("epoch_begin()"):
            return
        mark(EPOCH_BEGIN_SCOPE)
        regions.epoch_begin()
        self._epoch_open = True

    def epoch_end(self):
        """Marks the end of an epoch: in the trace, in jouleprof's recorder and, under
        `jouleprof run --epochs`, for the run's STEP projection."""
        if not self._inside_block("epoch_end()"):
            return
        mark(EPOCH_END_SCOPE)
        regions.epoch_end()
        # Every epoch_end ends an epoch, begun or not, as `jouleprof run` counts them.
        self._epochs_ended += 1
        self._epoch_open = False

    def _open_step(self):
        if self._step_scope is None:
            self._step_scope = self._open_scope(f"{STEP_PREFIX}{self._steps}")
            self._steps += 1

    def __exit__(self, exc_type, exc, tb):
        self._inside = False
        profile_warnings = []
        if self._epoch_open:
            open_epoch = (f"epoch {self._epochs_ended + 1} was begun (epoch_begin()) but not ended "
                          "(epoch_end()) inside the profiled block: its energy is in no epoch")
            warnings.warn(f"jouleprof.torch.profile: {open_epoch}", stacklevel=2)
            profile_warnings.append(open_epoch)
        if exc is None:
            self._finish(profile_warnings, cut_short=None)
            return False
        cut_short = (f"the profiled block raised {exc_type.__name__}: the figures cover the time "
                     "until then")
        try:
            self._finish(profile_warnings, cut_short)
        except Exception as failure:  # noqa: BLE001 (the block's exception goes on, this with it)
            self._attribution_error = failure
            _attach_note(exc, "jouleprof.torch.profile: after the block raised, its profile could "
                         f"not be attributed: {type(failure).__name__}: {failure}")
        return False

    def _finish(self, profile_warnings, cut_short):
        """Stops measuring, writes the trace and attributes it (inside `jouleprof run`: gives it
        to the run). `profile_warnings` and `cut_short` (the reason, or None) go into the
        measured profile."""
        self._stop_measuring(profile_warnings, cut_short)
        self._write_trace()
        if self.joined_run:
            _native.check(_lib.jp_recorder_add_trace(_native.encode(self.trace_path)))
        else:
            self._attribute()

    def _stop_measuring(self, profile_warnings=(), cut_short=None):
        if self._scopes is not None:
            self._scopes.close()
            self._scopes = None
        self._close_step()
        if self._torch_profile is not None:
            self._torch_profile.__exit__(None, None, None)
        if self._monitor is not None and self.totals is None:
            for warning in profile_warnings:
                self._monitor.warn(warning)
            if cut_short is not None:
                self._monitor.cut_short(cut_short)
            self.totals = self._monitor.stop()

    def _write_trace(self):
        import torch  # noqa: PLC0415

        if torch.autograd.kineto_available():
            self._torch_profile.export_chrome_trace(self.trace_path)
        else:
            write_events_trace(self._torch_profile, self.trace_path)

    def _attribute(self):
        options = {"window": "run"}
        if self._method is not None:
            options["method"] = self._method
        _native.check(_lib.jp_attribute(_native.encode(self.samples_profile_path),
                                        _native.encode(self.trace_path),
                                        _native.encode(self.profile_path),
                                        json.dumps(options).encode()))
        with open(self.profile_path, encoding="utf-8") as f:
            self._attributed = json.load(f)

    # ---- results

    @property
    def torch_profiler(self):
        """The torch.profiler.profile session (key_averages(), events(), ...)."""
        return self._torch_profile

    def _require_results(self, what):
        if self._attributed is None:
            if self.joined_run:
                return False
            if self._attribution_error is not None:
                raise RuntimeError(f"{what}: the profiled block raised, and its profile could not "
                                   f"be attributed: {self._attribution_error}")
            raise RuntimeError(f"{what}: run the profile's `with` block first (it attributes on "
                               "exit)")
        return True

    def profile(self):
        """The attributed profile as a dict (docs/schema.md); None inside `jouleprof run`."""
        return self._attributed if self._require_results("profile()") else None

    def tree(self):
        """The energy tree (jouleprof.tree.Node): run → step → [forward] / [backward] /
        [optimizer] → modules → operators, plus [unattributed] (energy outside every span), so
        that it sums to the measured total. None inside `jouleprof run` (the run has the tree)."""
        if not self._require_results("tree()"):
            return None
        return node_from_dict(self._attributed["tree"])

    @property
    def energy_per_step(self):
        """One step's mean energy with its 95 % interval (jouleprof.RepeatedEnergy: the Student-t
        interval over the steps with the attribution's terms), over two or more prof.step()
        calls; None with fewer, and inside `jouleprof run` (the run's profile has it)."""
        if not self._require_results("energy_per_step"):
            return None
        return repeated_energy_from_dict(self._attributed.get("energy_per_step"))

    @property
    def energy_per_epoch(self):
        """One epoch's mean energy with its 95 % interval (jouleprof.RepeatedEnergy), over two or
        more epochs (epoch_begin / epoch_end); None with fewer, and inside `jouleprof run`."""
        if not self._require_results("energy_per_epoch"):
            return None
        return repeated_energy_from_dict(self._attributed.get("energy_per_epoch"))

    @property
    def backward_unlinked_share(self):
        """Share of the backward pass's time charged to no module (0 without a backward pass)."""
        if not self._require_results("backward_unlinked_share"):
            return None
        options = self._attributed["meta"].get("options", {})
        return 1.0 - float(options.get("trace.backward_module_share", 1.0))

    def table(self, row_limit=None, depth=4, top=10, full=False, width=None):
        """The profile as `jouleprof attribute` and `profile` print it (the same C++ renderer):
        the headline, the `top` operators, then the tree — energy, share of the total, % of the
        parent, power, time, calls; largest first, `depth` levels, at most `row_limit` rows
        (None: 40). `full` shows everything with whole names; `width` defaults to the terminal's
        (100 columns when not one)."""
        if not self._require_results("table()"):
            return ("(inside `jouleprof run`: the energy tree is the run's, in its profile.json "
                    "and report)\n")
        return reports.format_tree(self.profile_path, max_depth=depth, max_rows=row_limit,
                                   top=top, full=full, width=width)

    def export(self, path):
        """Writes what `path`'s name asks for: "*.html" the HTML report, "*.svg" the flame graph,
        "trace*.json" / "*.trace.json" the torch.profiler trace that was attributed (with the
        autograd links; `jouleprof attribute --trace` reads it), "samples*.csv" the measured
        samples (`--samples`), "*.csv" the tree as CSV, "*.txt" the text tree, other "*.json" the
        profile. Returns the path."""
        path = os.fspath(path)
        name = os.path.basename(path).lower()
        if name.endswith(".json") and (name.startswith("trace") or name.endswith(".trace.json")):
            shutil.copyfile(self.trace_path, path)
            return path
        report_format = reports.report_format_for(path)
        if not self._require_results("export()"):
            warnings.warn(f"{path} not written: inside `jouleprof run` the energy figures are the "
                          "run's (its profile.json)", stacklevel=2)
            return None
        if name.endswith(".csv") and name.startswith("samples"):
            reports.write_samples(self.samples_profile_path, path)
        else:
            reports.write_report(self.profile_path, report_format, path)
        return path
