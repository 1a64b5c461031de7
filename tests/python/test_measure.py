"""jouleprof.measure: a Python function through the gated protocol, with progress callbacks and a
stop asked from the callback, on the simulated source (a constant 40 W)."""

import json

import pytest

import jouleprof

FAST = dict(sources="simulated", settings={"simulate.watts": 40}, interval_ms=50, last_n=3,
            check_period_s=0.05, tail_wait_s=0.05, min_updates=20)


def test_measures_a_python_function_and_reports_its_progress(tmp_path):
    events = []
    profile = tmp_path / "profile.json"
    calls = []
    r = jouleprof.measure(lambda: calls.append(1), preset="quick", repetitions=2,
                          progress=events.append, profile_path=profile, **FAST)
    assert r.repetitions == 2 and not r.incomplete
    assert r.total_j > 0 and r.call_s > 0
    assert abs(r.total_j - 40.0 * r.call_s) < 0.05 * 40.0 * r.call_s + 1e-6
    assert r.estimate_s > 0 and r.took_s > 0
    # The intervals reach Python through the sized struct and hold their figures.
    assert r.total_low_j <= r.total_j <= r.total_high_j
    assert r.net_low_j <= r.net_j <= r.net_high_j
    assert r.uncertainty_dominant in ("repetition", "read-delay")
    kinds = [e.kind for e in events]
    assert kinds[0] == "begin" and kinds[-1] == "end"
    assert [e.step for e in events if e.kind == "step"] == [1, 2]
    gates = [e for e in events if e.kind == "gate"]
    assert gates and all(e.gate_channel for e in gates)
    assert any(e.gate_passed for e in gates)
    assert {e.phase for e in events} >= {"warm-up", "gate", "calls", "tail"}
    doc = json.loads(profile.read_text())
    assert doc["meta"]["options"]["gated.preset"].startswith("quick (changed: ")
    assert len(calls) > 2


def test_a_true_return_from_progress_stops_and_keeps_what_was_measured():
    def stop_in_second_repetition(e):
        return e.step == 2 and e.phase == "calls"

    r = jouleprof.measure(lambda: None, preset="quick", repetitions=3,
                          progress=stop_in_second_repetition, **FAST)
    assert r.incomplete
    assert r.repetitions == 1
    assert r.repetitions_asked == 3


def test_an_exception_in_the_function_is_raised_again():
    def failing():
        raise ValueError("model broke")

    with pytest.raises(ValueError, match="model broke"):
        jouleprof.measure(failing, **FAST)


def test_a_bad_option_names_itself():
    with pytest.raises(jouleprof.JouleprofError, match="preset"):
        jouleprof.measure(lambda: None, preset="fast", **FAST)
    with pytest.raises(jouleprof.JouleprofError, match="repetitions"):
        jouleprof.measure(lambda: None, repetitions=-1, **FAST)
