"""Offline evaluation throughput of the retail reference agent: episodes per second, by worker count.

Run: .venv/bin/python benchmarks/eval_throughput.py [--trials 1] [--workers 1 2]
Prints one line per worker count and the speed-up ratio measured in the same run (the machines are shared
and noisy: compare the ratio, not absolute numbers across runs).
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from build_kits.taskspec import load_task
from orchestrator.build import build_run
from orchestrator.evaluation import evaluate_run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="retail-01")
    parser.add_argument("--trials", type=int, default=1)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING)
    spec = load_task(args.task)
    rates = {}
    with tempfile.TemporaryDirectory(prefix="hypertau-bench-") as tmp:
        for workers in args.workers:
            run_dir = Path(tmp) / f"w{workers}"
            build_run(spec, "reference", run_dir, seed=0, sandbox="local")
            started = time.perf_counter()
            results = evaluate_run(run_dir, trials=args.trials, workers=workers, show_progress=False)
            elapsed = time.perf_counter() - started
            rates[workers] = results["episodes"] / elapsed
            print(f"workers={workers}: {results['episodes']} episodes in {elapsed:.2f} s = "
                  f"{rates[workers]:.2f} episodes/s (mean {elapsed / results['episodes'] * 1000:.0f} ms/episode, "
                  f"pass^1 {results['pass_hat_k']['1']:.3f})")
    base = args.workers[0]
    for workers in args.workers[1:]:
        print(f"speed-up workers={workers} vs workers={base}: {rates[workers] / rates[base]:.2f}x")


if __name__ == "__main__":
    main()
