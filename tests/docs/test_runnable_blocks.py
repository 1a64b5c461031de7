"""Every shell block of README.md and docs/*.md marked runnable (a fence opened with
"```sh runnable") runs here, as the reader would paste it: in a fresh directory holding
tests/docs/fixtures, with this build's jouleprof first on PATH, and — where the block needs
hardware — the simulated source instead (JOULEPROF_SOURCE=simulated, JOULEPROF_SET=the settings
written after "runnable", else simulate.watts=20). A block whose settings begin with the word
`postgresql` records into the test suite's PostgreSQL server (the CTest fixture store.postgres_start,
found through JOULEPROF_TEST_POSTGRES, which only a build with libpq sets; without it the block is
skipped): JOULEPROF_DB is its URL. A block passes when
bash -euo pipefail runs it to exit code 0."""

import os
import pathlib
import re
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
FIXTURES = pathlib.Path(__file__).resolve().parent / "fixtures"
FENCE = re.compile(r"^```sh runnable(?P<settings>.*)$")
DEFAULT_SETTINGS = "simulate.watts=20"
# A block is a recipe, not a benchmark: none may take longer than this.
BLOCK_TIMEOUT_S = 300


def runnable_blocks():
    blocks = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        lines = doc.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            opened = FENCE.match(lines[i])
            if not opened:
                i += 1
                continue
            start = i + 1
            end = start
            while end < len(lines) and lines[end] != "```":
                end += 1
            assert end < len(lines), f"{doc}:{i + 1}: runnable block is never closed"
            blocks.append(pytest.param(
                "\n".join(lines[start:end]) + "\n", opened.group("settings").strip(),
                id=f"{doc.relative_to(ROOT)}:{i + 1}"))
            i = end + 1
    return blocks


BLOCKS = runnable_blocks()


def postgres_url():
    server = os.environ.get("JOULEPROF_TEST_POSTGRES", "")
    if not server:
        pytest.skip("this build has no PostgreSQL history (JOULEPROF_WITH_POSTGRESQL=OFF)")
    url_file = pathlib.Path(server) / "url"
    assert url_file.exists(), (
        "a postgresql block needs the test PostgreSQL server: run it through ctest (the fixture "
        f"store.postgres_start); JOULEPROF_TEST_POSTGRES={server!r}")
    return url_file.read_text(encoding="utf-8").strip()


def environment(home, settings):
    cli = pathlib.Path(os.environ["JOULEPROF_CLI"])
    env = dict(os.environ)
    env["PATH"] = f"{cli.parent}{os.pathsep}{env.get('PATH', '')}"
    env["HOME"] = str(home)
    env["JOULEPROF_DB"] = str(home / "history.db")
    if settings.split(" ", 1)[0] == "postgresql":
        env["JOULEPROF_DB"] = postgres_url()
        settings = settings[len("postgresql"):].strip()
    env["JOULEPROF_SOURCE"] = "simulated"
    env["JOULEPROF_SET"] = settings or DEFAULT_SETTINGS
    env["PYTHONPATH"] = str(ROOT / "python")
    env.pop("COLUMNS", None)
    return env


def test_the_docs_have_runnable_blocks_and_the_ci_recipe_is_one():
    ids = [b.id for b in BLOCKS]
    assert any(i.startswith("README.md:") for i in ids), ids
    assert any(i.startswith("docs/reports.md:") and "compare" in b.values[0]
               for i, b in zip(ids, BLOCKS)), ids


@pytest.mark.parametrize("script,settings", BLOCKS)
def test_block_runs(script, settings, tmp_path):
    work = tmp_path / "work"
    shutil.copytree(FIXTURES, work)
    done = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=work,
                          env=environment(tmp_path, settings), capture_output=True, text=True,
                          timeout=BLOCK_TIMEOUT_S, check=False)
    assert done.returncode == 0, (
        f"exit code {done.returncode}\n--- block\n{script}--- stdout\n{done.stdout}"
        f"--- stderr\n{done.stderr}")
