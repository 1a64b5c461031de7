"""One recording through the three front-ends of the `attribute` job — `jouleprof attribute`, the
C API's jp_attribute (from a C program) and Python's jouleprof.attribute — gives the same profile,
byte for byte: they only parse their arguments into the library's attribute_recording_files."""

import json
import os
import subprocess
import time

import pytest

import jouleprof

CLI = os.environ["JOULEPROF_CLI"]
C_FRONT_END = os.environ.get("JOULEPROF_ATTRIBUTE_C")
SHARED_DATA = os.environ.get("JOULEPROF_SHARED_DATA", "")


def busy(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def cli_flags(options):
    """The command-line flags that say what the options JSON says."""
    flag_of = {"method": "--method", "classes": "--classes", "window": "--window",
               "idle_power_w": "--idle-w", "trace_offset_ns": "--offset-ns", "meta": "--meta",
               "calibration": "--calibration"}
    flags = []
    for key, value in options.items():
        if key == "channel_devices":
            for channel, device in value.items():
                flags += ["--channel-device", f"{channel}={device}"]
        else:
            flags += [flag_of[key], str(value)]
    return flags


def through_every_front_end(tmp_path, samples, trace, options):
    """The three profiles' bytes, and the command line's --format json tree."""
    cli_dir = tmp_path / "cli"
    trace_flags = [] if trace is None else ["--trace", str(trace)]
    cli = subprocess.run([CLI, "attribute", "--samples", str(samples), *trace_flags,
                          *cli_flags(options), "--output", str(cli_dir), "--format", "json"],
                         capture_output=True, text=True, check=False)
    assert cli.returncode == 0, cli.stderr
    c_path = tmp_path / "c.json"
    c = subprocess.run([C_FRONT_END, str(samples), "-" if trace is None else str(trace), str(c_path),
                        json.dumps(options)], capture_output=True, text=True, check=False)
    assert c.returncode == 0, c.stderr
    python_path = jouleprof.attribute(samples, tmp_path / "python.json", trace, **options)
    return ((cli_dir / "profile.json").read_bytes(), c_path.read_bytes(),
            python_path.read_bytes(), json.loads(cli.stdout)["tree"])


def assert_identical(profiles):
    cli, c, python, cli_stdout_tree = profiles
    assert c == cli
    assert python == cli
    # --format json prints the same profile (arrays expanded instead of packed).
    assert cli_stdout_tree == json.loads(cli)["tree"]
    assert json.loads(cli)["tree"]["children"], "nothing was attributed"


pytestmark = pytest.mark.skipif(C_FRONT_END is None, reason="jp_attribute_main not built")


@pytest.mark.skipif(not os.path.exists(os.path.join(SHARED_DATA, "h200", "bert_fold.json.gz")),
                    reason="../shared/data/h200 is not here")
def test_the_h200_recording_gives_one_profile(tmp_path):
    h200 = os.path.join(SHARED_DATA, "h200")
    options = {"meta": os.path.join(h200, "meta_fold.json"), "classes": "kernel"}
    assert_identical(through_every_front_end(tmp_path, os.path.join(h200, "nvml_fast.csv"),
                                             os.path.join(h200, "bert_fold.json.gz"), options))


@pytest.fixture(name="monitored")
def monitored_run(tmp_path):
    """A Monitor's profile (simulated 40 W) with its own regions."""
    path = tmp_path / "run" / "profile.json"
    path.parent.mkdir()
    with jouleprof.Monitor(sources="simulated", settings={"simulate.watts": 40}, interval_ms=2,
                           profile_path=path):
        with jouleprof.region("load"):
            busy(0.03)
        with jouleprof.region("train"):
            with jouleprof.region("forward"):
                busy(0.04)
            busy(0.01)
    return path


def test_a_monitor_profile_and_its_own_spans_give_one_profile(monitored, tmp_path):
    options = {"method": "time-split", "window": "timeline", "idle_power_w": 3}
    assert_identical(through_every_front_end(tmp_path, monitored, None, options))


def test_samples_csv_with_a_trace_at_an_offset_give_one_profile(monitored, tmp_path):
    samples = tmp_path / "samples.csv"
    jouleprof.write_samples(monitored, samples)
    profile = json.loads(monitored.read_text(encoding="utf-8"))
    begin, end = profile["meta"]["begin_ns"], profile["meta"]["end_ns"]
    # A Chrome trace on its own clock (µs from 0): --offset-ns puts it on the run's.
    half_us = (end - begin) / 2e3
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps({"traceEvents": [
        {"name": "step", "ph": "X", "ts": 0, "dur": half_us, "pid": 1, "tid": 1},
        {"name": "matmul", "ph": "X", "ts": 0, "dur": half_us / 2, "pid": 1, "tid": 1},
        {"name": "step", "ph": "X", "ts": half_us, "dur": half_us, "pid": 1, "tid": 1}]}),
        encoding="utf-8")
    channel = next(s["channel"]["id"] for s in profile["series"]
                   if not s["channel"].get("parent_id") and s["channel"]["kind"] == "energy_j")
    options = {"method": "hold", "trace_offset_ns": begin, "channel_devices": {channel: "cpu0"}}
    assert_identical(through_every_front_end(tmp_path, samples, trace, options))


def test_bad_input_is_one_error_through_each_front_end(monitored, tmp_path):
    options = {"channel_devices": {"nosuch": "gpu0"}}
    cli = subprocess.run([CLI, "attribute", "--samples", str(monitored), *cli_flags(options)],
                         capture_output=True, text=True, check=False)
    c = subprocess.run([C_FRONT_END, str(monitored), "-", str(tmp_path / "c.json"),
                        json.dumps(options)], capture_output=True, text=True, check=False)
    with pytest.raises(jouleprof.JouleprofError) as python:
        jouleprof.attribute(monitored, tmp_path / "python.json", **options)
    assert cli.returncode == 1 and c.returncode == 1
    message = "field 'CHANNEL' has value 'nosuch': is not a channel of the samples"
    assert message in cli.stderr
    assert message in c.stderr
    assert message in str(python.value)
