"""Where `import jouleprof` finds libjouleprof.so from a source checkout, and what it says when it
finds none."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRINT_LIBRARY = "import jouleprof._native as n; print(n.lib._name)"


def run_python(code, **env_changes):
    env = {k: v for k, v in os.environ.items() if k != "JOULEPROF_LIBRARY"}
    env.update(env_changes)
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                          check=False)


def test_beside_the_jouleprof_executable_on_path():
    # PATH comes before the source tree's build/lib.
    cli = Path(os.environ["JOULEPROF_CLI"])
    done = run_python(PRINT_LIBRARY, PATH=f"{cli.parent}{os.pathsep}{os.environ.get('PATH', '')}")
    assert done.returncode == 0, done.stderr
    found = Path(done.stdout.strip())
    assert found == cli.resolve().parent.parent / "lib" / "libjouleprof.so"


@pytest.mark.skipif(not (ROOT / "build" / "lib" / "libjouleprof.so").is_file(),
                    reason="the source tree has no build/lib/libjouleprof.so")
def test_in_the_source_trees_build_lib():
    path = os.pathsep.join(d for d in os.environ.get("PATH", "").split(os.pathsep)
                           if not (Path(d) / "jouleprof").exists())
    assert shutil.which("jouleprof", path=path) is None
    done = run_python(PRINT_LIBRARY, PATH=path)
    assert done.returncode == 0, done.stderr
    assert Path(done.stdout.strip()) == ROOT / "build" / "lib" / "libjouleprof.so"


def test_a_missing_library_lists_every_place_tried_and_how_to_get_one(tmp_path):
    done = run_python(PRINT_LIBRARY, JOULEPROF_LIBRARY=str(tmp_path / "nowhere.so"))
    assert done.returncode != 0
    assert "nowhere.so" in done.stderr
    assert "jouleprof_wheel" in done.stderr and "jouleprof_shared" in done.stderr
