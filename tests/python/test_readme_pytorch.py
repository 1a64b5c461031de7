"""README.md's "PyTorch in five minutes" commands, run verbatim in a fresh venv built from the
wheel, without the environment variables the other Python tests set: if they rot, this fails.
They run as after the two set-up commands on a fresh machine: from a checkout root whose `build`
is this build tree, with a HOME of their own, and with a `python3` first on the PATH that is not
Debian's (as pyenv or conda put one there), which the recipe must not pick."""

import os
import re
import subprocess
from pathlib import Path

import pytest

pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[2]


def five_minute_commands():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## PyTorch in five minutes", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)\n```", section, flags=re.S)
    assert len(blocks) == 1, "the section has one shell block"
    return blocks[0]


def test_readme_pytorch_commands_run_in_a_fresh_venv(tmp_path):
    build_dir = Path(os.environ["JOULEPROF_BUILD_DIR"])
    assert list((build_dir / "wheel").glob("jouleprof-*.whl")), "build the jouleprof_wheel target"
    # The commands name build/… from the repository root; here `build` is this test's build tree.
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "build").symlink_to(build_dir)
    home = tmp_path / "home"
    home.mkdir()
    shim = tmp_path / "other-python"
    shim.mkdir()
    (shim / "python3").write_text("#!/bin/sh\necho 'not the Debian python3 (no torch here)' >&2\n"
                                  "exit 1\n")
    (shim / "python3").chmod(0o755)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "JOULEPROF_LIBRARY", "JOULEPROF_SPANS_FILE")}
    env["HOME"] = str(home)
    env["PATH"] = str(shim) + os.pathsep + env.get("PATH", "")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", five_minute_commands()],
                          cwd=checkout, env=env, capture_output=True, text=True, check=False,
                          timeout=900)
    out = done.stdout
    assert done.returncode == 0, out[-4000:] + done.stderr[-4000:]
    # The first run's table comes first: show it whole when it lacks the passes.
    assert "[backward]" in out and "[forward]" in out and "Sequential" in out, out[:6000]
    assert "% of parent" in out
    work = home / "jouleprof-try"
    assert (work / "out.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    # Nothing was written beside the checkout's build tree.
    assert sorted(p.name for p in checkout.iterdir()) == ["build"]
    # The second run joined `jouleprof run`: its table says where the tree is; the run reports
    # on stderr, leaving the script's stdout its own.
    assert "the energy tree is the run's" in out
    assert "jouleprof run:" in done.stderr and "jouleprof run:" not in out


def test_readme_pytorch_commands_say_so_when_the_venv_has_no_torch(tmp_path):
    # A venv without Debian's site packages stands for one made by an interpreter without torch:
    # the recipe stops at its check, naming the package, before any traceback.
    commands = five_minute_commands().replace("-m venv --system-site-packages venv", "-m venv venv")
    assert "-m venv venv" in commands
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "build").symlink_to(Path(os.environ["JOULEPROF_BUILD_DIR"]))
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "JOULEPROF_LIBRARY", "JOULEPROF_SPANS_FILE")}
    env["HOME"] = str(home)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=checkout, env=env,
                          capture_output=True, text=True, check=False, timeout=900)
    assert done.returncode != 0
    assert "no torch in this venv: apt-get install python3-torch" in done.stderr, done.stderr[-2000:]
    assert not (home / "jouleprof-try" / "out.html").exists()
