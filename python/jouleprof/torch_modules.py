"""Module scopes for the PyTorch profiler: each nn.Module's forward becomes a named
record_function scope in the trace, so that attribute_torch_trace() gives a per-module tree
without with_stack (torch's with_modules covers TorchScript models only).

    with jouleprof.Monitor(...) as m, torch.profiler.profile(record_shapes=True) as prof:
        with jouleprof.module_scopes(model):
            model(x)
    prof.export_chrome_trace("trace.json")
    tree = jouleprof.attribute_torch_trace("trace.json")

Scope names are the root module's class name and, below it, each submodule's dotted path
("encoder", "encoder.0"). torch is imported only when this is used.

Clock: PyTorch's legacy profiler (builds without Kineto, e.g. Debian's torch 1.13) writes times in
µs since its own start, with no absolute clock. clock_sync() (called by module_scopes on entry)
leaves a zero-length scope named "jouleprof::clock_sync <ns>" whose name holds jouleprof's
monotonic time taken just before it begins; attribute_torch_trace() maps the trace with it.
"""

import contextlib

from . import regions

CLOCK_SYNC_PREFIX = "jouleprof::clock_sync "


def clock_sync():
    """Leaves a clock reference in the running PyTorch profiler's trace (see the module doc)."""
    import torch  # noqa: PLC0415

    t_ns = regions.now_ns()
    with torch.profiler.record_function(f"{CLOCK_SYNC_PREFIX}{t_ns}"):
        pass


@contextlib.contextmanager
def module_scopes(model, root_name=None):
    import torch  # noqa: PLC0415 (only needed here)

    root_name = root_name or type(model).__name__
    open_scopes = []  # a stack: forwards nest

    def enter(name):
        def pre_hook(module, inputs):
            scope = torch.profiler.record_function(name)
            scope.__enter__()
            open_scopes.append(scope)

        return pre_hook

    def leave(module, inputs, output):
        open_scopes.pop().__exit__(None, None, None)

    handles = []
    clock_sync()
    try:
        for path, module in model.named_modules():
            name = path if path else root_name
            handles.append(module.register_forward_pre_hook(enter(name)))
            handles.append(module.register_forward_hook(leave))
        yield model
    finally:
        for handle in handles:
            handle.remove()
        while open_scopes:  # a forward that raised leaves its scopes open
            open_scopes.pop().__exit__(None, None, None)
