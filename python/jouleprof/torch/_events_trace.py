"""A Kineto-style Chrome trace from the events of a torch.profiler session, for torch builds
without Kineto (Debian's torch 1.13): their own export (a bare array of names and times) leaves out
the autograd sequence numbers and forward-thread ids that link backward nodes to the forward ops
that created them. The events hold them; this writes them as Kineto does ("Sequence number",
"Fwd thread id"), with categories and the profiler's realtime start as baseTimeNanoseconds."""

import json
import os

# torch's RecordScope values (aten/src/ATen/record_function.h).
_USER_SCOPE = 7


def _event_json(event, pid):
    start = event.time_range.start
    args = {}
    if event.sequence_nr >= 0:
        args["Sequence number"] = event.sequence_nr
        args["Fwd thread id"] = event.fwd_thread or 0
    if event.input_shapes:
        args["Input Dims"] = event.input_shapes
    return {
        "ph": "X",
        "cat": "user_annotation" if event.scope == _USER_SCOPE else "cpu_op",
        "name": event.trace_name or event.name,
        "pid": pid,
        "tid": event.thread,
        "ts": start,
        "dur": event.time_range.end - start,
        "args": args,
    }


def write_events_trace(torch_profile, path):
    """Writes the finished torch.profiler.profile's CPU events to `path`."""
    import torch  # noqa: PLC0415

    pid = os.getpid()
    events = []
    threads = set()
    for event in torch_profile.events():
        if event.device_type != torch.autograd.DeviceType.CPU:
            continue  # device events of the legacy CUDA fallback have no stream to go on
        events.append(_event_json(event, pid))
        threads.add(event.thread)
    for thread in sorted(threads):
        events.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": thread,
                       "args": {"name": f"thread {thread} (python)"}})
    trace = {"schemaVersion": 1, "displayTimeUnit": "ms", "traceEvents": events,
             "traceName": os.path.basename(os.fspath(path)),
             "jouleprofWriter": f"jouleprof.torch from torch {torch.__version__} events"}
    results = getattr(torch_profile.profiler, "kineto_results", None)
    if results is not None and hasattr(results, "trace_start_us"):
        trace["baseTimeNanoseconds"] = int(results.trace_start_us()) * 1000
    with open(path, "w", encoding="utf-8") as f:
        json.dump(trace, f)
