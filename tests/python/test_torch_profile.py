"""jouleprof.torch.profile on a real model trained with Debian's torch, under the simulated source
at a constant 40 W: with constant power, energy is proportional to time, so every module's share of
the energy must be its share of the time, and the backward pass must land under the modules."""

import itertools
import json
import os
import re
import subprocess

import pytest

import jouleprof

torch = pytest.importorskip("torch")
import jouleprof.torch  # noqa: E402 (after the skip: it needs torch at runtime)

WATTS = 40.0
STEPS = 10
MODULES = ("big", "act", "small")


class ThreeModules(torch.nn.Module):
    """Three modules of very different cost: a 1024×4096 Linear, a ReLU, a 16×16 Linear."""

    def __init__(self):
        super().__init__()
        self.big = torch.nn.Linear(1024, 4096)
        self.act = torch.nn.ReLU()
        self.small = torch.nn.Linear(16, 16)

    def forward(self, x):
        return self.small(self.act(self.big(x))[:, :16])


def train(prof, model, steps=STEPS):
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(64, 1024)
    target = torch.randn(64, 16)
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(model(x), target)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        prof.step()
    prof.epoch_end()


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    torch.manual_seed(0)
    model = ThreeModules()
    out = tmp_path_factory.mktemp("profile")
    with jouleprof.torch.profile(model, sources="simulated", settings={"simulate.watts": WATTS},
                                 interval_ms=2, output_dir=out) as prof:
        train(prof, model)
    return prof


def module_nodes(tree, name):
    return [n for n in tree.walk() if n.name == name]


def test_the_tree_sums_to_the_measured_total(trained):
    tree = trained.tree()
    assert tree.energy_j == pytest.approx(trained.totals.energy_j, rel=1e-6)
    assert sum(c.energy_j for c in tree.children) == pytest.approx(tree.energy_j, rel=1e-6)
    assert tree.find("[unattributed]") is not None
    assert tree.provenance == "simulated"


def test_steps_passes_and_the_optimizer(trained):
    step = trained.tree().child("step")
    assert step is not None and step.calls == STEPS
    for pass_node in ("[forward]", "[backward]", "[optimizer]"):
        assert step.child(pass_node) is not None, [c.name for c in step.children]
    forward_model = step.child("[forward]").child("ThreeModules")
    assert forward_model is not None and forward_model.calls == STEPS
    optimizer = step.child("[optimizer]")
    assert any(c.name.startswith("Optimizer.step#SGD.step") for c in optimizer.children)


def test_the_steps_are_repetitions_with_their_energy_per_step(trained):
    per_step = trained.energy_per_step
    assert isinstance(per_step, jouleprof.RepeatedEnergy)
    assert per_step.n == STEPS
    step = trained.tree().child("step")
    assert per_step.energy_j == pytest.approx(step.energy_j / STEPS, rel=1e-9)
    assert per_step.energy_j_low <= per_step.energy_j <= per_step.energy_j_high
    assert per_step.uncertainty is not None
    # The step node keeps its sum over the steps; its spread is per step.
    assert step.energy_stats["n"] == STEPS
    assert step.energy_stats["mean"] == pytest.approx(per_step.energy_j, rel=1e-9)
    assert step.child("[forward]").energy_stats["n"] == STEPS
    assert trained.tree().energy_stats is None
    assert trained.energy_per_epoch is None  # one epoch


def test_the_big_linear_holds_the_backward_pass(trained):
    backward = trained.tree().child("step").child("[backward]")
    model = backward.child("ThreeModules")
    assert model is not None, [c.name for c in backward.children]
    big = model.child("big")
    assert big is not None and big.pass_ == "backward"
    assert big.energy_j >= 0.8 * backward.energy_j
    assert model.child("act") is not None and model.child("small") is not None
    # Autograd's own nodes sit under the module, the operators below them.
    assert any("AddmmBackward0" in n.name for n in big.walk())
    assert any(n.name == "aten::mm" for n in big.walk())
    assert trained.backward_unlinked_share < 0.05


def test_each_module_gets_its_share_of_the_time(trained):
    tree = trained.tree()
    energy = {m: sum(n.energy_j for n in module_nodes(tree, m)) for m in MODULES}
    time = {m: sum(n.time_ns for n in module_nodes(tree, m)) for m in MODULES}
    total_energy = sum(energy.values())
    total_time = sum(time.values())
    for m in MODULES:
        assert energy[m] / total_energy == pytest.approx(time[m] / total_time, abs=0.02), m
    # And each is 40 W × its time.
    big_time_s = time["big"] * 1e-9
    assert energy["big"] == pytest.approx(WATTS * big_time_s, rel=0.02)


def test_table_is_the_command_lines_view(trained):
    table = trained.table(row_limit=10, depth=3, width=100)
    lines = table.splitlines()
    assert lines[0].startswith("jouleprof ")
    assert any(line.startswith("total ") for line in lines)
    header = next(i for i, line in enumerate(lines) if line.startswith("node "))
    assert "% of parent" in lines[header]
    assert lines[header + 1].startswith("run")
    tree = lines[header + 1:]
    rows = list(itertools.takewhile(bool, tree))  # the tree ends at the first blank line
    assert len(rows) <= 10  # the row limit counts the "(N more)" rows too
    assert any("step" in line for line in tree)
    # A "(N more)" row carries the energy it stands for, in whatever unit its size calls for.
    assert any(re.search(r"\(\d+ more\)\s+[\d.]+ [µmk]?J\b", line) for line in tree), tree
    assert "top operators" in table
    assert max(len(line) for line in lines) <= 100
    # full: every node, however wide.
    assert len(trained.table(full=True).splitlines()) > len(lines)


def test_exports_pick_the_format_from_the_name(trained, tmp_path):
    html_text = open(trained.export(tmp_path / "out.html"), encoding="utf-8").read()
    assert html_text.startswith("<!DOCTYPE html>")
    svg_text = open(trained.export(tmp_path / "flame.svg"), encoding="utf-8").read()
    # Frames are coloured by category, as the legend says: modules as layers, autograd nodes and
    # aten ops as ops (a Python-traced model once drew every frame as a region).
    legend = dict((name, fill) for fill, name in re.findall(
        r'<g class="legend"><rect [^>]*fill="([^"]+)"/><text [^>]*>([^<]+)</text>', svg_text))
    fills = dict(re.findall(r'data-path="([^"]*)"[^>]*>.*?fill="([^"]+)"', svg_text, re.S))
    assert fills["step/[backward]/ThreeModules/big"] == legend["layer"], legend
    assert fills["step/[forward]/ThreeModules/big/aten::linear"] == legend["op"], legend
    assert fills["step"] == legend["step"], legend
    # The summary's duration is the attributed window's (it once read 0 ns), three digits.
    value, unit = re.search(r'<div class="v">([0-9.]+) (s|ms)</div><div class="k">duration',
                            html_text).groups()
    shown_s = float(value) * (1e-3 if unit == "ms" else 1.0)
    assert shown_s == pytest.approx(trained.totals.duration_s, rel=0.01)
    profile = json.load(open(trained.export(tmp_path / "profile.json"), encoding="utf-8"))
    assert profile["tree"]["name"] == "run"
    trace = json.load(open(trained.export(tmp_path / "trace.json"), encoding="utf-8"))
    assert any(e.get("args", {}).get("Sequence number") is not None for e in trace["traceEvents"])
    samples = open(trained.export(tmp_path / "samples.csv"), encoding="utf-8").read()
    assert "t_ns,channel,kind,value" in samples
    with pytest.raises(ValueError, match="cannot tell the format"):
        trained.export(tmp_path / "out.xyz")


def relative_paths(node, prefix=""):
    """{path: energy} of every node below the root, [unattributed] left out."""
    out = {}
    for c in node.children:
        if c.name == "[unattributed]":
            continue
        path = f"{prefix}/{c.name}"
        out[path] = c.energy_j
        out.update(relative_paths(c, path))
    return out


def test_the_command_line_gives_the_same_tree(trained, tmp_path):
    trace = trained.export(tmp_path / "trace.json")
    samples = trained.export(tmp_path / "samples.csv")
    # The run's window, as Python attributed over it: where the counter is coarse for the spans,
    # the refinement and the regression fit over every counter window inside it, so another
    # window (the trace's, by default) changes the spans' shares too.
    with open(trained.export(tmp_path / "profile.json"), encoding="utf-8") as f:
        run = json.load(f)["meta"]
    meta = tmp_path / "meta.json"
    meta.write_text(json.dumps({"marks": [["run_begin", run["begin_ns"]],
                                          ["run_end", run["end_ns"]]]}), encoding="utf-8")
    done = subprocess.run([os.environ["JOULEPROF_CLI"], "attribute", "--trace", trace,
                           "--samples", samples, "--meta", meta, "--format", "json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    cli = jouleprof.node_from_dict(json.loads(done.stdout)["tree"])
    python_paths = relative_paths(trained.tree())
    cli_paths = relative_paths(cli)
    assert set(cli_paths) == set(python_paths)
    for path, energy in python_paths.items():
        # The same spans over the same window get the same energy.
        assert cli_paths[path] == pytest.approx(energy, rel=1e-6, abs=1e-12), path


def simulated_profile(model, output_dir):
    return jouleprof.torch.profile(model, sources="simulated", settings={"simulate.watts": WATTS},
                                   interval_ms=2, output_dir=output_dir)


class Interrupt:
    """A forward hook that raises `exception` in the `calls`-th forward of the module it is on: an
    error, or Ctrl-C's KeyboardInterrupt, in the middle of a training step."""

    def __init__(self, exception, calls):
        self.exception = exception
        self.calls = calls

    def __call__(self, module, inputs, output):
        self.calls -= 1
        if self.calls == 0:
            raise self.exception


@pytest.mark.parametrize("exception", [ZeroDivisionError, KeyboardInterrupt])
def test_a_block_that_raises_keeps_the_profile_marked_partial(tmp_path, exception):
    torch.manual_seed(0)
    model = ThreeModules()
    model.act.register_forward_hook(Interrupt(exception, calls=4))  # in step 4's forward
    prof = simulated_profile(model, tmp_path / "out")
    with pytest.raises(exception):
        with prof:
            train(prof, model)
    # Everything recorded until then is attributed, and the tree still sums to the total.
    tree = prof.tree()
    assert tree.energy_j == pytest.approx(prof.totals.energy_j, rel=1e-6)
    step = tree.child("step")
    assert step.calls == 4  # three whole steps, and the fourth until the exception
    assert step.child("[backward]").child("ThreeModules").child("big") is not None
    profile = prof.profile()
    assert profile["meta"]["partial"] is True
    raised = f"the profiled block raised {exception.__name__}: the figures cover the time until then"
    assert raised in profile["warnings"]
    table = prof.table(width=100)
    assert "PARTIAL RUN" in table and exception.__name__ in table
    exported = json.load(open(prof.export(tmp_path / "partial.json"), encoding="utf-8"))
    assert exported["meta"]["partial"] is True
    assert "cut short" in open(prof.export(tmp_path / "partial.html"), encoding="utf-8").read()
    # The measurement itself says so too.
    with open(prof.samples_profile_path, encoding="utf-8") as f:
        assert json.load(f)["meta"]["partial"] is True


@pytest.mark.skipif(not hasattr(BaseException, "add_note"), reason="exception notes: Python 3.11")
def test_when_attributing_fails_too_the_blocks_exception_goes_on_with_a_note(tmp_path):
    model = ThreeModules()
    # The calibrated method without calibration weights: an attribution that fails.
    prof = jouleprof.torch.profile(model, sources="simulated", settings={"simulate.watts": WATTS},
                                   method="calibrated", output_dir=tmp_path)
    with pytest.raises(ValueError, match="bad batch") as raised:
        with prof:
            model(torch.randn(2, 1024))
            raise ValueError("bad batch")
    notes = getattr(raised.value, "__notes__", [])
    assert any("its profile could not be attributed: JouleprofError: attribution: field 'method"
               in n and "needs calibration weights" in n for n in notes), notes
    assert prof.totals is not None  # the sources were stopped
    with pytest.raises(RuntimeError, match="block raised, and its profile could not be attributed"):
        prof.tree()
    with pytest.raises(RuntimeError, match="attributes on exit"):
        jouleprof.torch.profile(ThreeModules()).tree()


def test_steps_and_epoch_marks_outside_the_block_warn(tmp_path):
    model = ThreeModules()
    prof = simulated_profile(model, tmp_path)
    for call in (prof.step, prof.epoch_begin, prof.epoch_end):
        with pytest.warns(UserWarning, match="called before the profile's `with` block, where it "
                          "marks nothing") as caught:
            call()
        assert caught[0].filename == __file__  # the caller's line
    with prof:
        model(torch.randn(2, 1024))
        prof.step()
    with pytest.warns(UserWarning, match=r"epoch_end\(\) was called after the profile's `with`"):
        prof.epoch_end()
    assert prof.tree().child("step").calls == 1


def test_an_epoch_begun_and_not_ended_warns(tmp_path):
    model = ThreeModules()
    prof = simulated_profile(model, tmp_path)
    with pytest.warns(UserWarning) as caught:
        with prof:
            prof.epoch_begin()
            train(prof, model, steps=2)  # ends epoch 1
            prof.epoch_begin()
            model(torch.randn(2, 1024))
    open_epoch = [w for w in caught if "was begun" in str(w.message)]
    assert len(open_epoch) == 1
    assert open_epoch[0].filename == __file__
    assert "epoch 2 was begun (epoch_begin()) but not ended (epoch_end()) inside the profiled " \
        "block: its energy is in no epoch" in str(open_epoch[0].message)
    profile = prof.profile()
    assert any(w.startswith("epoch 2 was begun") for w in profile["warnings"]), profile["warnings"]
    assert len(profile["epochs"]) == 1


def test_a_torchscript_model_is_refused_with_what_to_do():
    scripted = torch.jit.script(ThreeModules())
    with pytest.raises(TypeError, match=r"RecursiveScriptModule is a TorchScript module .* Pass the "
                       r"eager nn.Module it was made from, or profile without module scopes"):
        jouleprof.torch.profile(scripted)
    traced = torch.jit.trace(ThreeModules(), torch.randn(2, 1024))
    with pytest.raises(TypeError, match="TorchScript module"):
        jouleprof.torch.profile(traced)
    with pytest.raises(TypeError, match="TorchScript module"):
        with jouleprof.module_scopes(scripted):
            pass
    # Operators only: no hooks, so a scripted model is fine.
    with jouleprof.torch.profile(None, sources="simulated", settings={"simulate.watts": WATTS},
                                 interval_ms=2) as prof:
        scripted(torch.randn(2, 1024))
    assert prof.tree().find("aten::linear") is not None


class WithScriptedPart(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.eager = torch.nn.Linear(1024, 16)
        self.scripted = torch.jit.script(torch.nn.Sequential(torch.nn.ReLU(),
                                                             torch.nn.Linear(16, 16)))

    def forward(self, x):
        return self.scripted(self.eager(x))


def test_a_torchscript_submodule_gets_no_scope_and_one_warning(tmp_path):
    model = WithScriptedPart()
    prof = simulated_profile(model, tmp_path)
    with pytest.warns(UserWarning, match=r"WithScriptedPart: TorchScript submodules \(scripted\) "
                      "run without Python hooks") as caught:
        with prof:
            for _ in range(3):
                model(torch.randn(8, 1024)).sum().backward()
                prof.step()
    assert len([w for w in caught if "TorchScript" in str(w.message)]) == 1
    assert caught[0].filename == __file__
    forward = prof.tree().child("step").child("[forward]").child("WithScriptedPart")
    assert forward.child("eager") is not None
    assert forward.find("scripted") is None and forward.find("scripted.1") is None


def test_training_another_module_object_than_the_profiled_one_says_so(tmp_path):
    profiled = ThreeModules()
    prof = simulated_profile(profiled, tmp_path)
    with prof:
        train(prof, ThreeModules(), steps=3)
    warnings = prof.profile()["warnings"]
    assert any("no forward of the profiled model ThreeModules ran inside the block, so probably "
               "a different module object was trained than the one passed to "
               "jouleprof.torch.profile" in w for w in warnings), warnings
    assert not any("record it inside" in w for w in warnings), warnings


def test_an_export_that_cannot_be_written_says_why(trained):
    for name in ("x.html", "samples.csv"):
        with pytest.raises(jouleprof.JouleprofError, match=f"/nonexistent-dir/{name}: cannot open "
                           "for writing: No such file or directory"):
            trained.export(f"/nonexistent-dir/{name}")
