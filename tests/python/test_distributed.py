"""A real 2-rank torch.distributed run (gloo, on CPU, started with torch.multiprocessing and the
launcher's environment variables), profiled two ways:
- each rank under jouleprof.torch.profile with a monitor of its own, one profile a rank, then
  `jouleprof merge` over a glob that also matches a side file: two rank trees, one merged total
  that agrees everywhere it is printed, per-rank energies that sum to the attributed part of it, a
  [communication] node under the steps, and the wait table;
- the whole job under `jouleprof run --spans`, the ranks' profiles joining the run: one run, a
  [rank N] node a rank in its tree, a profile a rank and their merge beside it, all agreeing."""

import json
import os
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("torch")

WORLD = 2
STEPS = 8

SCRIPT = textwrap.dedent("""
    import os, socket, sys
    import torch, torch.distributed as dist, torch.multiprocessing as mp
    import jouleprof.torch

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.fc = torch.nn.Linear(8 * 16 * 16, 10)

        def forward(self, x):
            return self.fc(torch.relu(self.conv(x)).flatten(1))

    def worker(rank, world, port, out, steps, joined):
        # What torchrun sets: jouleprof reads the rank from it.
        os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank),
                          WORLD_SIZE=str(world), LOCAL_RANK=str(rank))
        dist.init_process_group("gloo", rank=rank, world_size=world)
        torch.manual_seed(0)
        torch.set_num_threads(1)
        model = torch.nn.parallel.DistributedDataParallel(Net())
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        x, y = torch.randn(16, 3, 16, 16), torch.randint(0, 10, (16,))
        # Inside `jouleprof run --spans` the profile joins the run: no monitor of its own.
        own = {} if joined else dict(sources="simulated", settings={"simulate.watts": 40},
                                     interval_ms=2)
        with jouleprof.torch.profile(model, **own) as prof:
            for _ in range(steps):
                torch.nn.functional.cross_entropy(model(x), y).backward()
                optimizer.step()
                optimizer.zero_grad()
                prof.step()
        if not joined:
            prof.export(os.path.join(out, f"rank-{rank}.json"))
        dist.destroy_process_group()

    if __name__ == "__main__":
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        joined = len(sys.argv) > 4 and sys.argv[4] == "joined"
        mp.spawn(worker, args=(int(sys.argv[2]), port, sys.argv[1], int(sys.argv[3]), joined),
                 nprocs=int(sys.argv[2]))
""")


def nodes(tree, name):
    found = [tree] if tree["name"] == name else []
    for child in tree.get("children", []):
        found += nodes(child, name)
    return found


@pytest.fixture(scope="module")
def merged(tmp_path_factory):
    out = tmp_path_factory.mktemp("ranks")
    script = out / "ddp.py"
    script.write_text(SCRIPT)
    subprocess.run([sys.executable, str(script), str(out), str(WORLD), str(STEPS)], check=True,
                   timeout=300)
    # A side file the glob also matches, as `jouleprof run --output rank-0.json` leaves one.
    (out / "rank-0.spans.json").write_text(json.dumps({"names": [], "spans": []}))
    ranks = [json.loads((out / f"rank-{r}.json").read_text()) for r in range(WORLD)]
    merged_path = out / "merged.json"
    done = subprocess.run(
        [os.environ["JOULEPROF_CLI"], "merge", *sorted(str(p) for p in out.glob("rank-*.json")),
         "--output", str(merged_path)], capture_output=True, text=True, check=True)
    report = subprocess.run([os.environ["JOULEPROF_CLI"], "report", str(merged_path)],
                            capture_output=True, text=True, check=True)
    return ranks, json.loads(merged_path.read_text()), done.stderr, report.stdout


def test_each_rank_records_its_rank_and_its_tree(merged):
    ranks, _, _, _ = merged
    for rank, profile in enumerate(ranks):
        assert profile["meta"]["rank"] == rank
        assert profile["meta"]["world_size"] == WORLD
        assert profile["meta"]["options"]["cluster.launcher"] == "torchrun"
        assert nodes(profile["tree"], "step"), "a tree with its steps"


def test_merge_skips_the_side_file_with_one_note(merged):
    _, _, stderr, _ = merged
    assert "note: skipped 1 file that is not a jouleprof profile" in stderr
    assert "rank-0.spans.json" in stderr
    assert f"merged {WORLD} profiles" in stderr


def top_level_energy(profile):
    parents = {s["channel"]["id"]: s["channel"].get("parent_id", "") for s in profile["series"]}
    return sum(c["energy_j"] for c in profile["channels"]
               if not parents.get(c["channel_id"], ""))


def test_the_merged_total_agrees_everywhere(merged):
    ranks, m, _, report = merged
    options = m["meta"]["options"]
    total = top_level_energy(m)
    hosts = sum(float(v) for k, v in options.items() if k.startswith("merge.host_energy_j."))
    assert m["tree"]["energy_j"] == pytest.approx(total, rel=1e-6)
    assert hosts == pytest.approx(total, rel=1e-6)
    # One host: its counter once, not once a rank (the ranks' windows differ a little).
    assert total < 1.5 * top_level_energy(ranks[0])
    rank_j = [float(options[f"merge.rank_energy_j.r{r}"]) for r in range(WORLD)]
    others = nodes(m["tree"], "[other processes]")
    others_j = others[0]["energy_j"] if others else 0.0
    assert sum(rank_j) + others_j == pytest.approx(total, rel=1e-6)
    assert all(0 < j < total for j in rank_j), "a rank's share, never the whole machine"
    # The observed processes are every rank's.
    observed = sum(c.get("process_energy_j", 0.0) for c in m["channels"]
                   if not c["channel_id"].startswith("r1@"))
    assert observed == pytest.approx(sum(rank_j), rel=1e-6)
    headline = next(line for line in report.splitlines() if line.startswith("total "))
    share_line = next(line for line in report.splitlines() if "share = of the" in line)
    printed_total = headline.split()[1] + " " + headline.split()[2].rstrip(",")
    assert f"share = of the {printed_total} total" in share_line


def test_collectives_are_in_a_communication_node_under_the_steps(merged):
    ranks, m, _, _ = merged
    for profile in [*ranks, m]:
        step = nodes(profile["tree"], "step")[0]
        communication = [c for c in step["children"] if c["name"] == "[communication]"]
        assert communication, "collectives under the step"
        assert communication[0]["energy_j"] > 0
        names = {c["name"] for c in communication[0]["children"]}
        assert any(n.startswith("gloo:") for n in names), names
        assert not collectives_outside_communication(profile["tree"])


def collectives_outside_communication(node, inside=False):
    inside = inside or node["name"] == "[communication]"
    found = [] if inside or not node["name"].startswith(("c10d::", "gloo:")) else [node["name"]]
    for child in node.get("children", []):
        found += collectives_outside_communication(child, inside)
    return found


def test_the_report_shows_each_ranks_wait(merged):
    _, m, _, report = merged
    options = m["meta"]["options"]
    for r in range(WORLD):
        assert int(options[f"merge.steps.r{r}"]) == STEPS
        assert 0 < float(options[f"merge.communication_time_s.r{r}"]) < float(
            options[f"merge.step_time_s.r{r}"])
        assert float(options[f"merge.communication_energy_j.r{r}"]) > 0
    lines = report.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("rank "))
    assert "wait energy" in lines[header]
    assert [lines[header + 1 + r].split()[0] for r in range(WORLD)] == [str(r) for r in range(WORLD)]


@pytest.fixture(scope="module")
def one_run(tmp_path_factory):
    """The job under `jouleprof run --spans`: its directory and what jouleprof printed."""
    work = tmp_path_factory.mktemp("one-run")
    script = work / "ddp.py"
    script.write_text(SCRIPT)
    out = work / "run"
    done = subprocess.run(
        [os.environ["JOULEPROF_CLI"], "run", "--spans", "--simulate", "40", "--interval", "2",
         "--no-history", "--output", str(out), "--", sys.executable, str(script), str(work),
         str(WORLD), str(STEPS), "joined"],
        capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return out, done.stderr


def test_one_run_has_a_tree_per_rank_with_its_own_collectives(one_run):
    out, _ = one_run
    run = json.loads((out / "profile.json").read_text())
    for r in range(WORLD):
        rank_nodes = [c for c in run["tree"]["children"] if c["name"] == f"[rank {r}]"]
        assert rank_nodes, [c["name"] for c in run["tree"]["children"]]
        steps = nodes(rank_nodes[0], "step")
        assert steps, f"rank {r}'s steps"
        communication = [c for c in steps[0]["children"] if c["name"] == "[communication]"]
        assert communication and communication[0]["energy_j"] > 0
    assert not collectives_outside_communication(run["tree"])


def test_one_run_writes_a_profile_a_rank_and_their_merge_which_agree(one_run):
    out, stderr = one_run
    run = json.loads((out / "profile.json").read_text())
    merged = json.loads((out / "merged.json").read_text())
    assert f"ranks: {WORLD} profiles" in stderr and "merged.json" in stderr
    total = top_level_energy(run)
    # One machine, measured once: the merge counts its counter once, not once a rank.
    assert top_level_energy(merged) == pytest.approx(total, rel=1e-9)
    assert merged["tree"]["energy_j"] == pytest.approx(total, rel=1e-6)
    options = merged["meta"]["options"]
    for r in range(WORLD):
        rank = json.loads((out / f"rank-{r}.json").read_text())
        assert rank["meta"]["rank"] == r and rank["meta"]["world_size"] == WORLD
        in_run = next(c for c in run["tree"]["children"] if c["name"] == f"[rank {r}]")
        assert rank["tree"]["energy_j"] == pytest.approx(in_run["energy_j"], rel=1e-9)
        assert float(options[f"merge.rank_energy_j.r{r}"]) == pytest.approx(in_run["energy_j"],
                                                                              rel=1e-6)
        assert 0 < in_run["energy_j"] < total, "a rank's share, never the whole machine"
        assert int(options[f"merge.steps.r{r}"]) == STEPS
    others = nodes(merged["tree"], "[other processes]")
    ranks_j = sum(float(options[f"merge.rank_energy_j.r{r}"]) for r in range(WORLD))
    assert ranks_j + (others[0]["energy_j"] if others else 0.0) == pytest.approx(total, rel=1e-6)
