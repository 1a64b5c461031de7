"""README.md's "PyTorch in five minutes" commands, run verbatim in a fresh venv built from the
wheel, without the environment variables the other Python tests set: if they rot, this fails."""

import os
import re
import subprocess
import sys
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
    (tmp_path / "build").symlink_to(build_dir)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "JOULEPROF_LIBRARY", "JOULEPROF_SPANS_FILE")}
    # `python3` is the Debian interpreter these tests run with (the one with python3-torch), as
    # on the fresh Debian machine README.md is written for.
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", five_minute_commands()],
                          cwd=tmp_path, env=env, capture_output=True, text=True, check=False,
                          timeout=900)
    out = done.stdout
    assert done.returncode == 0, out[-4000:] + done.stderr[-4000:]
    # The first run's table comes first: show it whole when it lacks the passes.
    assert "[backward]" in out and "[forward]" in out and "Sequential" in out, out[:6000]
    assert "% of parent" in out
    assert (tmp_path / "out.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    # The second run joined `jouleprof run`: its table says where the tree is; the run reports
    # on stderr, leaving the script's stdout its own.
    assert "the energy tree is the run's" in out
    assert "jouleprof run:" in done.stderr and "jouleprof run:" not in out
