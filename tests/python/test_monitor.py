"""The Python package over libjouleprof.so: Monitor, regions, errors."""

import json
import threading
import time

import pytest

import jouleprof

FORTY_WATTS = {"simulate.watts": 40}


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def find(node, name):
    if node["name"] == name:
        return node
    for child in node.get("children", []):
        found = find(child, name)
        if found is not None:
            return found
    return None


def test_monitor_measures_regions_and_the_tree_sums_to_the_total(tmp_path):
    path = tmp_path / "profile.json"
    with jouleprof.Monitor(sources="simulated", settings=FORTY_WATTS, interval_ms=2,
                           profile_path=path) as m:
        assert jouleprof.recording()
        with jouleprof.region("load"):
            busy(0.03)
        with jouleprof.region("train", category="step"):
            with jouleprof.region("forward"):
                busy(0.05)
        jouleprof.epoch_end()
    assert not jouleprof.recording()
    assert m.totals.spans == 3
    assert m.totals.mean_power_w == pytest.approx(40.0, rel=0.1)
    profile = json.loads(path.read_text())
    tree = profile["tree"]
    assert tree["energy_j"] == pytest.approx(m.totals.energy_j, rel=1e-6)
    assert m.totals.energy_low_j <= m.totals.energy_j <= m.totals.energy_high_j
    # The total's interval is the channels' over the whole measurement, the root's over the run
    # window the tree covers: alike to the edges' share.
    assert m.totals.energy_low_j == pytest.approx(tree["energy_j_low"], rel=1e-3)
    assert m.totals.uncertainty_dominant == tree["uncertainty_dominant"]
    assert sum(c["energy_j"] for c in tree["children"]) == pytest.approx(tree["energy_j"], rel=1e-6)
    train = find(tree, "train")
    assert train is not None and find(train, "forward") is not None
    assert train["energy_j"] == pytest.approx(40.0 * train["time_ns"] * 1e-9, rel=0.1)
    # Every node carries its 95 % interval (docs/uncertainty.md), and so does the Node view.
    for node in (tree, train):
        assert node["energy_j_low"] <= node["energy_j"] <= node["energy_j_high"]
        assert node["uncertainty_dominant"]
    node = jouleprof.node_from_dict(tree)
    assert node.find("train").energy_j_high == train["energy_j_high"]
    assert node.find("train").uncertainty is not None


def test_region_is_a_decorator_and_works_on_threads():
    @jouleprof.region("worker step")
    def step():
        busy(0.02)
        return 7

    with jouleprof.Monitor(sources="simulated", settings=FORTY_WATTS) as m:
        threads = [threading.Thread(target=step) for _ in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert step() == 7
    tree = m.tree()
    assert m.totals.spans == 3
    assert find(tree, "worker step")["calls"] == 3


def test_errors_raise_with_the_library_message(tmp_path):
    with pytest.raises(jouleprof.JouleprofError, match="no-such-source") as err:
        jouleprof.Monitor(sources="no-such-source").start()
    assert err.value.code == 1
    with pytest.raises(ValueError):
        jouleprof.region("x", category="nonsense")
    m = jouleprof.Monitor(sources="simulated", settings=FORTY_WATTS)
    with pytest.raises(RuntimeError):
        m.attribute_trace(tmp_path / "trace.json")
    with m:
        pass
    with pytest.raises(jouleprof.JouleprofError, match="missing.json"):
        m.attribute_trace(tmp_path / "missing.json")


def test_the_codes_warnings_and_a_cut_short_run_reach_the_profile():
    m = jouleprof.Monitor(sources="simulated", settings=FORTY_WATTS, interval_ms=2)
    with pytest.raises(RuntimeError, match=r"warn\(\): the Monitor is not running"):
        m.warn("too early")
    with m:
        busy(0.02)
        m.warn("the data loader skipped 3 batches")
        m.cut_short("stopped after 2 of 5 epochs")
    profile = m.profile()
    assert profile["meta"]["partial"] is True
    assert profile["warnings"][-2:] == ["the data loader skipped 3 batches",
                                        "stopped after 2 of 5 epochs"]
    with pytest.raises(RuntimeError, match="not running"):
        m.cut_short("too late")


def test_monitor_observes_its_own_process_by_default():
    with jouleprof.Monitor(sources="simulated", settings=FORTY_WATTS, interval_ms=2) as m:
        busy(0.25)
    assert m.totals.process_energy_j is not None
    assert 0.0 < m.totals.process_energy_j <= m.totals.energy_j * (1 + 1e-12)
    channel = m.profile()["channels"][0]
    assert channel["process_rule"] == "cpu-time"
    assert channel["process_share"] == pytest.approx(m.totals.process_energy_j / m.totals.energy_j)


def test_monitor_can_observe_nothing_or_refuses_a_bad_target():
    with jouleprof.Monitor(sources="simulated", settings=FORTY_WATTS, observe="none") as m:
        busy(0.02)
    assert m.totals.process_energy_j is None
    with pytest.raises(jouleprof.JouleprofError, match="observe"):
        jouleprof.Monitor(sources="simulated", observe={"pid": "x"}).start()
