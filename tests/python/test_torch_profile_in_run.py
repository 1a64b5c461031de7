"""The same jouleprof.torch.profile code inside `jouleprof run --spans`: it joins the run (no
sampler of its own) and the run's profile.json holds the one tree, backward pass under modules."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

import jouleprof

pytest.importorskip("torch")

SCRIPT = textwrap.dedent("""
    import torch, jouleprof, jouleprof.torch

    model = torch.nn.Sequential(torch.nn.Linear(256, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 8))
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(32, 256)
    with jouleprof.torch.profile(model) as prof:
        assert prof.joined_run, "inside jouleprof run --spans the profile joins the run"
        for _ in range(3):
            model(x).sum().backward()
            optimizer.step()
            optimizer.zero_grad()
            prof.step()
    assert prof.tree() is None
    print(prof.table())
""")


def run_under_jouleprof(script_text, tmp_path):
    """`jouleprof run --spans` of the script at a simulated 40 W: the process and the run's
    directory."""
    script = tmp_path / "train.py"
    script.write_text(script_text)
    out = tmp_path / "run"
    done = subprocess.run([os.environ["JOULEPROF_CLI"], "run", "--spans", "--simulate", "40",
                           "--no-history", "--output", str(out), "--", sys.executable,
                           str(script)], capture_output=True, text=True, check=False)
    return done, out


def test_profile_joins_jouleprof_run(tmp_path):
    done, out = run_under_jouleprof(SCRIPT, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the energy tree is the run's" in done.stdout
    profile = json.loads((out / "profile.json").read_text())
    # The run's sources only, each channel once: no second sampler. (Beside the energy counter,
    # the run's own `processes` source gives the busy-time channels of the observed processes.)
    energy = [s["channel"]["source"] for s in profile["series"]
              if s["channel"]["kind"] == "energy_j"]
    assert energy == ["simulated"], energy
    ids = [s["channel"]["id"] for s in profile["series"]]
    assert len(ids) == len(set(ids)), ids
    tree = jouleprof.node_from_dict(profile["tree"])
    step = tree.find("step")
    assert step is not None and step.calls == 3
    model = step.child("[backward]").child("Sequential")
    assert model is not None and model.child("0") is not None, json.dumps(profile["tree"])[:2000]
    assert tree.energy_j > 0


# Ctrl-C in the middle of training: KeyboardInterrupt leaves the block, and Python ends by
# re-raising SIGINT, so C exit handlers never run; the spans reach the run all the same.
INTERRUPTED = textwrap.dedent("""
    import os, signal, torch, jouleprof.torch

    model = torch.nn.Sequential(torch.nn.Linear(64, 256), torch.nn.ReLU(), torch.nn.Linear(256, 8))
    x = torch.randn(16, 64)
    with jouleprof.torch.profile(model) as prof:
        for step in range(1000):
            model(x).sum().backward()
            prof.step()
            if step == 4:
                os.kill(os.getpid(), signal.SIGINT)
""")


def test_an_interrupted_profile_keeps_its_spans_in_the_run(tmp_path):
    done, out = run_under_jouleprof(INTERRUPTED, tmp_path)
    assert "killed by signal 2" in done.stdout + done.stderr, done.stdout + done.stderr
    assert "no spans came back" not in done.stdout + done.stderr
    profile = json.loads((out / "profile.json").read_text())
    step = jouleprof.node_from_dict(profile["tree"]).find("step")
    assert step is not None and step.calls >= 5, json.dumps(profile["tree"])[:2000]
