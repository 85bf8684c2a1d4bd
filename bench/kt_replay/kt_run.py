#!/usr/bin/env python3
"""Runs Kernel Tuner's strategies in its simulation mode on brute-force
caches, several seeds each, and writes what each run evaluated, in order.

  kt_run.py --kt KERNEL_TUNER_SRC CACHE.json NAME --seeds 10 --evals 200 --out OUT.json
            [--strategies a,b,...]

Needs numpy, scipy, scikit-learn, pandas, jsonschema, xmltodict (Debian
packages) and Kernel Tuner's sources (it is not on any reachable package
index here). python-constraint2 is not packaged: kt_shim/ stands in for the
names Kernel Tuner imports, and the search space is built with its
"bruteforce" framework, which uses none of them.

A run's evaluations are its distinct configurations in the order Kernel
Tuner tried them, failed ones included (each cost a compile), cut at
--evals. Kernel Tuner's max_fevals counts valid configurations only, so it
is set above --evals and the list is cut here, the same count as the
replay of kernelblaster's policies uses.
"""
import argparse
import json
import os
import random
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_STRATEGIES = ["random_sample", "genetic_algorithm", "diff_evo", "bayes_opt", "dual_annealing",
                      "simulated_annealing", "greedy_ils", "pso", "firefly_algorithm", "mls", "basinhopping"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kt", required=True)
    ap.add_argument("cache")
    ap.add_argument("name")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--evals", type=int, default=200)
    ap.add_argument("--strategies", default=",".join(DEFAULT_STRATEGIES))
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    sys.path[:0] = [a.kt, os.path.join(HERE, "kt_shim")]
    warnings.simplefilter("ignore")
    import numpy as np
    import kernel_tuner

    keys = None
    runs = []
    for strategy in a.strategies.split(","):
        for seed in range(1, a.seeds + 1):
            random.seed(seed)
            np.random.seed(seed)
            t0 = time.time()
            devnull = open(os.devnull, "w")
            saved = sys.stdout
            sys.stdout = devnull
            try:
                results, env = kernel_tuner.tune_cache(
                    a.cache, strategy=strategy, verbose=False, quiet=True,
                    strategy_options={"max_fevals": a.evals * 3,
                                      "searchspace_construction_options": {"framework": "bruteforce"}})
                error = ""
            except Exception as e:  # a strategy that breaks is reported, not hidden
                results, error = [], f"{type(e).__name__}: {e}"
            finally:
                sys.stdout = saved
            seconds = time.time() - t0
            if keys is None and results:
                keys = [k for k in results[0] if k not in ("time", "times", "compile_time", "verification_time",
                                                           "benchmark_time", "strategy_time", "framework_time",
                                                           "timestamp")]
            seen, order = set(), []
            for r in results:
                cfg = ",".join(str(r[k]) for k in keys if k in r)
                if cfg in seen:
                    continue
                seen.add(cfg)
                t = r.get("time")
                order.append(t if isinstance(t, (int, float)) else None)
                if len(order) == a.evals:
                    break
            runs.append({"strategy": strategy, "seed": seed, "times": order, "seconds": seconds, "error": error})
            print(f"{a.name} {strategy} seed {seed}: {len(order)} evaluations, "
                  f"best {min([t for t in order if t is not None], default=float('nan')):.4g} "
                  f"({seconds:.1f} s){' ' + error if error else ''}", file=sys.stderr)
    with open(a.out, "w") as f:
        json.dump({"name": a.name, "cache": os.path.basename(a.cache), "evals": a.evals, "runs": runs}, f)


if __name__ == "__main__":
    main()
