"""jouleprof for a PyTorch model of your own: energy per module, with its backward pass.

    import jouleprof.torch
    with jouleprof.torch.profile(model) as prof:
        for x, y in loader:
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            prof.step()
        prof.epoch_end()
    print(prof.table(row_limit=10, depth=3))
    prof.export("out.html")

docs/python.md describes it; torch is imported when a profile starts, not before.
"""

from ._profile import profile

__all__ = ["profile"]
