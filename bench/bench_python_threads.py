"""What the package's threads cost around a call (docs/python.md, Threads and environment variables).

- jit loop: one DCOL query (a box and a capsule) through osculate.jax.dcol under jax.jit, called
  1,000 times in a Python loop, each result waited for: the mean time per call, the process CPU
  time per call and over the wall time of the loop (above 1: threads spinning beside the caller;
  below 1: the process waited for a core), and the threads of the process before and after (a single
  query runs on the calling thread, so the loop starts no OpenMP team); and the same loop around a
  jitted jax.pure_callback that does nothing, JAX's own share.
- after a batch: the process CPU time over a 50 ms sleep right after a two-thread dcol_batch of
  100 pairs, median of 11: what idle OpenMP threads burn once the call has returned.

Run it with the default environment, then with GOMP_SPINCOUNT=300000 (libgomp's own default, which
the package replaces) to see the difference:
    python bench/bench_python_threads.py
Prints one JSON object per line (bench/bench.h's format).
"""

import json
import os
import statistics
import time

import numpy as np

import osculate as osc


def report(case, metric, value, unit):
    print(json.dumps({"suite": "python_threads", "case": case, "metric": metric, "value": round(value, 6),
                      "unit": unit}), flush=True)


def threads_now():
    return len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else -1


def jit_loop(calls=1000):
    import jax
    import osculate.jax as ojax

    jax.config.update("jax_enable_x64", True)
    box = osc.Convex.box([0.5, 0.4, 0.3])
    capsule = osc.Convex.capsule(0.2, 0.4)
    pose_a = np.array(osc.pose([0.0, 0.0, 0.0]))
    pose_b = np.array(osc.pose([0.9, 0.2, 0.0]))
    # the same loop around a callback that does nothing: JAX's own cost of a host call
    shape = jax.ShapeDtypeStruct((), np.float64)
    nothing = jax.jit(lambda pa, pb: jax.pure_callback(lambda x, y: np.zeros((), np.float64), shape, pa, pb))
    dcol = jax.jit(lambda pa, pb: ojax.dcol(box, pa, capsule, pb)["distance"])
    for name, query in (("jit-dcol-single-query", dcol), ("jit-empty-callback", nothing)):
        query(pose_a, pose_b).block_until_ready()  # compile
        before = threads_now()
        wall, cpu = time.perf_counter(), time.process_time()
        for k in range(calls):
            pose_b[0] = 0.9 + 1e-4 * (k % 10)
            query(pose_a, pose_b).block_until_ready()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        report(name, "mean_per_call", 1e6 * wall / calls, "us")
        report(name, "process_cpu_per_call", 1e6 * cpu / calls, "us")
        report(name, "process_cpu_over_wall", cpu / wall, "ratio")
        report(name, "threads_before_after", float(threads_now() - before), "threads added")


def after_batch(rounds=11):
    box = osc.Convex.box([0.5, 0.4, 0.3])
    capsule = osc.Convex.capsule(0.2, 0.4)
    poses_b = np.tile(osc.pose([0.9, 0.2, 0.0]), (100, 1))
    poses_b[:, 0] += np.linspace(0.0, 1.0, 100)
    burnt = []
    for _ in range(rounds):
        osc.dcol_batch(box, osc.pose([0.0, 0.0, 0.0]), capsule, poses_b, derivatives=True, threads=2)
        cpu = time.process_time()
        time.sleep(0.05)
        burnt.append(time.process_time() - cpu)
    report("cpu-after-2-thread-batch", "cpu_over_50ms_sleep", 1e3 * statistics.median(burnt), "ms")


if __name__ == "__main__":
    print("OMP_WAIT_POLICY=%s GOMP_SPINCOUNT=%s" % (os.environ.get("OMP_WAIT_POLICY"),
                                                   os.environ.get("GOMP_SPINCOUNT")), flush=True)
    after_batch()
    jit_loop()
