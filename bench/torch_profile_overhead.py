"""What jouleprof.torch.profile costs over bare torch.profiler, on the same training loop, both
measured in one run.

    PYTHONPATH=python JOULEPROF_LIBRARY=build/lib/libjouleprof.so \
        OMP_NUM_THREADS=1 /usr/bin/python3 bench/torch_profile_overhead.py \
        [--model cnn|mlp|both] [--steps 50] [--rounds 15]

Models: "cnn", a small CIFAR-sized CNN (two 3×3 convolutions with ReLU and max-pooling, then two
Linear layers: ten layers in a Sequential, batch 32 of 3×32×32), and "mlp", the README's ("PyTorch
in five minutes": Linear(784, 1024), ReLU, Linear(1024, 10); batch 64). Each trains with SGD.

The models are measured one after the other. Each round runs the loop once under each of: (a) no
profiler, (b) torch.profiler.profile (CPU activity, the same settings jouleprof.torch.profile uses),
(c) jouleprof.torch.profile (energy sources + torch.profiler + module scopes), in an order rotated
from round to round. Per step: the median over rounds of each mode's mean step time, and the median
of the paired per-round ratios c/b − 1 and b/a − 1 with their spread (min … max), in wall time and
in the process's CPU time (all threads: the sampler's included; on a loaded machine it moves less
than wall time). Entering and leaving a profile are reported apart: they are paid once per profile,
not per step. Leaving is, for (b), stopping and torch's export_chrome_trace; for (c), stopping the
sources and torch.profiler, writing the trace and attributing. The energy source is the simulated
one, so the figures do not depend on the machine's counters.
"""

import argparse
import statistics
import tempfile
import time

import torch

import jouleprof.torch


def small_cnn():
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 8 * 8, 128), torch.nn.ReLU(),
        torch.nn.Linear(128, 10))
    return model, torch.randn(32, 3, 32, 32), torch.randint(0, 10, (32,))


def readme_mlp():
    model = torch.nn.Sequential(torch.nn.Linear(784, 1024), torch.nn.ReLU(),
                                torch.nn.Linear(1024, 10))
    return model, torch.randn(64, 784), torch.randint(0, 10, (64,))


MODELS = {
    "cnn": (small_cnn, "small CNN: 2×(Conv2d 3×3 + ReLU + MaxPool2d) + Linear(2048,128) + ReLU + "
                       "Linear(128,10), batch 32×3×32×32"),
    "mlp": (readme_mlp, "README MLP: Linear(784,1024) + ReLU + Linear(1024,10), batch 64"),
}


class Loop:
    """One model's training loop, `steps` SGD steps per run."""

    def __init__(self, make_model, steps):
        self.model, self.x, self.y = make_model()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=1e-3)
        self.steps = steps

    def run(self, on_step):
        """Mean wall and CPU seconds per step."""
        wall = time.perf_counter()
        cpu = time.process_time()
        for _ in range(self.steps):
            loss = torch.nn.functional.cross_entropy(self.model(self.x), self.y)
            loss.backward()
            self.optimizer.step()
            self.optimizer.zero_grad()
            on_step()
        return (time.perf_counter() - wall) / self.steps, (time.process_time() - cpu) / self.steps


def bare(loop):
    return loop.run(lambda: None), 0.0, 0.0


def torch_profiler(loop):
    begin = time.perf_counter()
    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU])
    prof.__enter__()
    enter = time.perf_counter() - begin
    step = loop.run(lambda: None)
    begin = time.perf_counter()
    prof.__exit__(None, None, None)
    with tempfile.TemporaryDirectory() as out:
        prof.export_chrome_trace(f"{out}/trace.json")
    return step, enter, time.perf_counter() - begin


def jouleprof_profile(loop):
    with tempfile.TemporaryDirectory() as out:
        begin = time.perf_counter()
        prof = jouleprof.torch.profile(loop.model, sources="simulated",
                                       settings={"simulate.watts": 40}, output_dir=out)
        prof.__enter__()
        enter = time.perf_counter() - begin
        step = loop.run(prof.step)
        begin = time.perf_counter()
        prof.__exit__(None, None, None)
        return step, enter, time.perf_counter() - begin


MODES = [("a none", bare), ("b torch.profiler", torch_profiler),
         ("c jouleprof.torch.profile", jouleprof_profile)]


def spread(values):
    return f"{statistics.median(values):+.1%} ({min(values):+.1%} … {max(values):+.1%})"


def report(description, steps, rounds, figures):
    print(f"\n{description}; {steps} steps per profile, {rounds} rounds")
    print(f"{'mode':<28} {'wall ms/step':>13} {'CPU ms/step':>12} {'enter ms':>9} {'exit ms':>8}"
          "  (medians)")
    for name, _ in MODES:
        wall, cpu, enter, leave = (figures[name][key] for key in ("wall", "cpu", "enter", "exit"))
        print(f"{name:<28} {1e3 * statistics.median(wall):>13.3f} "
              f"{1e3 * statistics.median(cpu):>12.3f} {1e3 * statistics.median(enter):>9.1f} "
              f"{1e3 * statistics.median(leave):>8.1f}")
    for label, key in (("wall", "wall"), ("CPU", "cpu")):
        a, b, c = (figures[name][key] for name, _ in MODES)
        print(f"per step ({label}), jouleprof.torch.profile over torch.profiler: "
              f"{spread([cj / bj - 1 for bj, cj in zip(b, c)])}")
        print(f"per step ({label}), torch.profiler over no profiler:             "
              f"{spread([bj / aj - 1 for aj, bj in zip(a, b)])}")


def measure(loop, rounds):
    """Per mode, the figures of every round: wall and CPU seconds per step, enter and exit."""
    for _, fn in MODES:  # warm-up: allocator, thread pools, first-call costs
        fn(loop)
    figures = {mode: {"wall": [], "cpu": [], "enter": [], "exit": []} for mode, _ in MODES}
    for r in range(rounds):
        for mode, fn in MODES[r % 3:] + MODES[:r % 3]:
            (wall, cpu), enter, leave = fn(loop)
            for key, value in (("wall", wall), ("cpu", cpu), ("enter", enter), ("exit", leave)):
                figures[mode][key].append(value)
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=[*MODELS, "both"], default="both")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    torch.manual_seed(0)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} intra-op thread(s)")
    # One model after the other: run in turns, the mode after each switch paid for the other
    # model's eviction of caches and allocator state, and the rotation put c there more often.
    for name in (MODELS if args.model == "both" else [args.model]):
        make_model, description = MODELS[name]
        figures = measure(Loop(make_model, args.steps), args.rounds)
        report(description, args.steps, args.rounds, figures)


if __name__ == "__main__":
    main()
