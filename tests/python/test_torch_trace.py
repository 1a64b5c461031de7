"""A real PyTorch model under torch.profiler, measured by jouleprof's simulated source: the
trace's module scopes get a per-module energy tree that sums to the measured total."""


import pytest

import jouleprof

torch = pytest.importorskip("torch")


class TinyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Sequential(
            torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256), torch.nn.ReLU())
        self.head = torch.nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.encoder(x))


def find(node, name):
    if node["name"] == name:
        return node
    for child in node.get("children", []):
        found = find(child, name)
        if found is not None:
            return found
    return None


def names(node):
    yield node["name"]
    for child in node.get("children", []):
        yield from names(child)


def test_per_module_energy_tree_from_a_pytorch_trace(tmp_path):
    torch.manual_seed(0)
    model = TinyNet().eval()
    x = torch.randn(64, 256)
    trace = tmp_path / "trace.json"
    with jouleprof.Monitor(sources="simulated", settings={"simulate.watts": 35}, interval_ms=2,
                           record_spans=False) as m:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU],
                                    record_shapes=True, with_stack=False) as prof:
            with jouleprof.module_scopes(model), torch.no_grad():
                for _ in range(20):
                    model(x)
    prof.export_chrome_trace(str(trace))

    attributed = tmp_path / "attributed.json"
    tree = jouleprof.attribute_torch_trace(trace, output_path=attributed)
    all_names = set(names(tree))
    for module in ("TinyNet", "encoder", "encoder.0", "encoder.1", "encoder.2", "head"):
        assert module in all_names, f"{module} missing from {sorted(all_names)[:40]}"
    # The tree sums to the Monitor's measured total (one rule reads the counter for both): the
    # modules plus [unattributed].
    assert tree["energy_j"] == pytest.approx(m.totals.energy_j, rel=1e-9)
    assert sum(c["energy_j"] for c in tree["children"]) == pytest.approx(tree["energy_j"], rel=1e-6)
    model_node = find(tree, "TinyNet")
    encoder = find(model_node, "encoder")
    head = find(model_node, "head")
    assert model_node["calls"] == 20
    assert encoder is not None and head is not None
    assert find(encoder, "encoder.0") is not None, "submodules nest under their parent"
    # At a constant 35 W every module's energy is 35 W × its time, and the encoder (two large
    # matmuls) outweighs the head (one small one).
    assert encoder["energy_j"] == pytest.approx(35.0 * encoder["time_ns"] * 1e-9, rel=0.1)
    assert encoder["energy_j"] > head["energy_j"] > 0
    # Operators from the trace sit below the modules.
    assert any(n.startswith("aten::") for n in names(encoder))
