"""What jouleprof.torch.profile costs over bare torch.profiler, on the same 20-step training loop,
both measured in one run.

    PYTHONPATH=python JOULEPROF_LIBRARY=build/lib/libjouleprof.so \
        OMP_NUM_THREADS=1 /usr/bin/python3 bench/torch_profile_overhead.py [--rounds 15]

Each round runs the loop once under each of: (a) no profiler, (b) torch.profiler.profile (CPU
activity, the same settings jouleprof.torch.profile uses), (c) jouleprof.torch.profile (energy
sources + torch.profiler + module scopes), in an order rotated from round to round. Per step:
the median over rounds of each mode's mean step time, and the median of the paired per-round
ratios c/b − 1 and b/a − 1 with their spread (min … max), in wall time and in the process's CPU
time (all threads: the sampler's included; on a loaded machine it moves less than wall time).
Entering and leaving a profile (starting the sources; stopping, writing the trace and, for (c),
attributing) is reported apart: it is paid once per profile, not per step. The energy source is
the simulated one, so the figures do not depend on the machine's counters.
"""

import argparse
import statistics
import tempfile
import time

import torch

import jouleprof.torch

STEPS = 20


def make_model(width, layers):
    blocks = []
    for _ in range(layers):
        blocks += [torch.nn.Linear(width, width), torch.nn.ReLU()]
    return torch.nn.Sequential(*blocks, torch.nn.Linear(width, 10))


def run_steps(model, optimizer, x, y, on_step):
    """Mean wall and CPU seconds per step."""
    wall = time.perf_counter()
    cpu = time.process_time()
    for _ in range(STEPS):
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        on_step()
    return (time.perf_counter() - wall) / STEPS, (time.process_time() - cpu) / STEPS


def bare(model, optimizer, x, y):
    return run_steps(model, optimizer, x, y, lambda: None), 0.0


def torch_profiler(model, optimizer, x, y):
    begin = time.perf_counter()
    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
    prof.__enter__()
    setup = time.perf_counter() - begin
    step = run_steps(model, optimizer, x, y, lambda: None)
    begin = time.perf_counter()
    prof.__exit__(None, None, None)
    with tempfile.TemporaryDirectory() as out:
        prof.export_chrome_trace(f"{out}/trace.json")
    return step, setup + time.perf_counter() - begin


def jouleprof_profile(model, optimizer, x, y):
    with tempfile.TemporaryDirectory() as out:
        begin = time.perf_counter()
        prof = jouleprof.torch.profile(model, sources="simulated",
                                       settings={"simulate.watts": 40}, output_dir=out)
        prof.__enter__()
        setup = time.perf_counter() - begin
        step = run_steps(model, optimizer, x, y, prof.step)
        begin = time.perf_counter()
        prof.__exit__(None, None, None)
        return step, setup + time.perf_counter() - begin


def spread(values):
    return f"{statistics.median(values):+.1%} ({min(values):+.1%} … {max(values):+.1%})"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--width", type=int, default=512)
    parser.add_argument("--layers", type=int, default=6)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(0)
    model = make_model(args.width, args.layers)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    x = torch.randn(args.batch, args.width)
    y = torch.randint(0, 10, (args.batch,))
    modes = [("a none", bare), ("b torch.profiler", torch_profiler),
             ("c jouleprof.torch.profile", jouleprof_profile)]
    for _, fn in modes:  # warm-up: allocator, thread pools, first-call costs
        fn(model, optimizer, x, y)
    wall_s = {name: [] for name, _ in modes}
    cpu_s = {name: [] for name, _ in modes}
    once_s = {name: [] for name, _ in modes}
    for r in range(args.rounds):
        for name, fn in modes[r % 3:] + modes[:r % 3]:
            (wall, cpu), once = fn(model, optimizer, x, y)
            wall_s[name].append(wall)
            cpu_s[name].append(cpu)
            once_s[name].append(once)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread(s); model: "
          f"{args.layers}×Linear({args.width},{args.width})+ReLU, batch {args.batch}; {STEPS} "
          f"steps per profile, {args.rounds} rounds")
    print(f"{'mode':<28} {'wall ms/step':>13} {'CPU ms/step':>12} {'enter+exit ms':>14}  (medians)")
    for name, _ in modes:
        print(f"{name:<28} {1e3 * statistics.median(wall_s[name]):>13.3f} "
              f"{1e3 * statistics.median(cpu_s[name]):>12.3f} "
              f"{1e3 * statistics.median(once_s[name]):>14.1f}")
    for label, per_step in (("wall", wall_s), ("CPU", cpu_s)):
        a, b, c = (per_step[name] for name, _ in modes)
        print(f"per step ({label}), jouleprof.torch.profile over torch.profiler: "
              f"{spread([cj / bj - 1 for bj, cj in zip(b, c)])}")
        print(f"per step ({label}), torch.profiler over no profiler:             "
              f"{spread([bj / aj - 1 for aj, bj in zip(a, b)])}")


if __name__ == "__main__":
    main()
