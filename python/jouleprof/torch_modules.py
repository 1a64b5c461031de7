"""Module scopes for the PyTorch profiler: each nn.Module's forward becomes a record_function scope
named "nn.Module: <name>" in the trace, so that the trace carries the model's structure without
with_stack (torch's with_modules covers TorchScript models only). jouleprof's trace importer
makes each such scope a module (a layer) and charges every backward node to the module whose
forward op created it. jouleprof.torch.profile opens them for you; module_scopes() is the piece
for a torch.profiler session of your own:

    with jouleprof.Monitor(...) as m, torch.profiler.profile() as prof:
        with jouleprof.module_scopes(model):
            model(x)
    prof.export_chrome_trace("trace.json")
    tree = jouleprof.attribute_torch_trace("trace.json")

Names: the root module's class name and, below it, each submodule's dotted path ("encoder",
"encoder.0"). torch is imported only when this is used. A zero-length scope
"jouleprof::module_scopes <root name>" names the model the hooks are on: the importer warns when
the trace holds no forward of it (the code ran a different module object).

TorchScript modules (torch.jit.script, torch.jit.trace) run their forward without Python hooks: a
scripted model is refused (TypeError); scripted submodules get no scopes of their own (one
warning), their work counting in the module that calls them.

Clock: torch's legacy profiler (builds without Kineto, e.g. Debian's torch 1.13) writes times in
µs since its own start, with no absolute clock. clock_sync() (called when the scopes open) leaves
a zero-length scope named "jouleprof::clock_sync <ns>" whose name holds jouleprof's monotonic
time taken just before it begins; the importer maps the trace's clock with it.
"""

import contextlib
import warnings

from . import regions

CLOCK_SYNC_PREFIX = "jouleprof::clock_sync "
EPOCH_BEGIN_SCOPE = "jouleprof::epoch_begin"
EPOCH_END_SCOPE = "jouleprof::epoch_end"
MODULE_PREFIX = "nn.Module: "
MODULE_SCOPES_PREFIX = "jouleprof::module_scopes "


def scope_calls():
    """(open_scope, close_scope): open_scope(name) begins a scope named `name` in the running
    PyTorch profiler (a user scope, as torch.profiler.record_function's) and returns the handle
    close_scope(handle) ends it with. They are the RecordFunction calls under record_function
    without what it adds to every scope: a Python object and a handle tensor (torch.zeros(1): four
    more profiled ops, aten::zeros, aten::empty, aten::zero_ and aten::fill_, in the trace under
    the enclosing scope), which were most of a scope's cost: module and step scopes open on every
    forward."""
    from torch import autograd  # noqa: PLC0415

    return autograd._record_function_with_args_enter, autograd._record_function_with_args_exit


def mark(name):
    """Leaves a zero-length scope named `name` in the running PyTorch profiler's trace."""
    open_scope, close_scope = scope_calls()
    close_scope(open_scope(name))


def clock_sync():
    """Leaves a clock reference in the running PyTorch profiler's trace (see the module doc)."""
    open_scope, close_scope = scope_calls()
    t_ns = regions.now_ns()
    close_scope(open_scope(f"{CLOCK_SYNC_PREFIX}{t_ns}"))


def require_eager_module(model):
    """Raises TypeError for a TorchScript module, whose forward no hook sees."""
    import torch  # noqa: PLC0415

    if isinstance(model, torch.jit.ScriptModule):
        raise TypeError(
            f"{type(model).__name__} is a TorchScript module (torch.jit.script or torch.jit.trace): "
            "its forward runs without Python hooks, so jouleprof cannot scope its modules. Pass "
            "the eager nn.Module it was made from, or profile without module scopes "
            "(jouleprof.torch.profile(model=None)) to see the operators only")


class ModuleScopes:
    """Forward pre/post hooks on every module of `model` that open and close its scope.
    `on_root_forward` (optional) is called before the root module's scope opens. `stacklevel`: the
    warning about TorchScript submodules names the line that many frames above this call."""

    def __init__(self, model, root_name=None, on_root_forward=None, stacklevel=3):
        import torch  # noqa: PLC0415

        require_eager_module(model)
        self._open_scope, self._close_scope = scope_calls()
        self._open = []  # handles, a stack: forwards nest
        self._handles = []
        root_name = root_name or type(model).__name__
        scripted = []  # the outermost TorchScript submodules: no hook fires on or inside them
        for path, module in model.named_modules():
            if isinstance(module, torch.jit.ScriptModule):
                if not any(path.startswith(f"{outer}.") for outer in scripted):
                    scripted.append(path)
                continue
            is_root = not path
            name = MODULE_PREFIX + (root_name if is_root else path)
            self._handles.append(module.register_forward_pre_hook(
                self._enter(name, on_root_forward if is_root else None)))
            self._handles.append(module.register_forward_hook(self._leave))
        if scripted:
            warnings.warn(
                f"{root_name}: TorchScript submodules ({', '.join(scripted)}) run without Python "
                "hooks, so they get no scopes of their own: their work counts in the module that "
                "calls them", stacklevel=stacklevel)
        mark(f"{MODULE_SCOPES_PREFIX}{root_name}")

    def _enter(self, name, before):
        open_scope, opened = self._open_scope, self._open

        def pre_hook(module, inputs):
            if before is not None:
                before()
            opened.append(open_scope(name))

        return pre_hook

    def _leave(self, module, inputs, output):
        if self._open:
            self._close_scope(self._open.pop())

    def close(self):
        for handle in self._handles:
            handle.remove()
        self._handles = []
        while self._open:  # a forward that raised leaves its scopes open
            self._close_scope(self._open.pop())


@contextlib.contextmanager
def module_scopes(model, root_name=None):
    # The warning names the user's `with` line: above this generator and contextlib's __enter__.
    scopes = ModuleScopes(model, root_name, stacklevel=4)
    clock_sync()
    try:
        yield model
    finally:
        scopes.close()
