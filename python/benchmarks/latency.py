"""The latency of one short pipeline call (make bench-python): a question
about a two-sentence context, asked of a kept pipeline, REPS times after a
warm-up; the median and the 90th percentile, with the load average and
the CPU beside them. Then calls per second from one thread and from 8
threads at once, the calls' settings alternating (top_k 1 and 3) in both:
side by side, on one process.

    python latency.py MODEL [REPS]
"""

import concurrent.futures
import statistics
import subprocess
import sys
import time

import qa_shard

CONTEXT = "Lovelace GmbH was founded in 1843 by Ada Lovelace. Its headquarters moved to Zurich in 1965."


def main(model, reps="200"):
    reps = int(reps)
    with qa_shard.pipeline("question-answering", model=model, devices="cpu", args=["--tune-cache", "none"]) as qa:
        cpu = [l for l in subprocess.run([qa.binary, "version"], stdout=subprocess.PIPE, text=True).stdout.splitlines()
               if l.startswith("cpu:")]
        load = open("/proc/loadavg").read().split()[:3]
        for _ in range(10):
            qa(question="Who founded the company?", context=CONTEXT)
        ts = []
        for _ in range(reps):
            t = time.perf_counter()
            qa(question="Who founded the company?", context=CONTEXT)
            ts.append(time.perf_counter() - t)
        rates = {n: throughput(qa, n, reps) for n in (1, 8)}
        pids = qa.pids
    ts.sort()
    print("load average %s; %s" % (" ".join(load), cpu[0] if cpu else "cpu: ?"))
    print("one short call, %d calls: median %.2f ms, 90th percentile %.2f ms (model %s)"
          % (reps, 1000 * statistics.median(ts), 1000 * ts[int(0.9 * len(ts))], model))
    for n, rate in rates.items():
        print("%d thread(s), %d calls of top_k 1 and 3 alternating: %.0f calls/s (%.2fx one thread)"
              % (n, reps * 2, rate, rate / rates[1]))
    print("processes used: %d" % len(pids))


def throughput(qa, threads, reps):
    """Calls per second when threads threads make reps*2 calls between
    them, top_k alternating between 1 and 3."""
    def call(i):
        qa(question="Who founded the company?", context=CONTEXT, top_k=1 + 2 * (i % 2))
    t = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(threads) as ex:
        list(ex.map(call, range(reps * 2)))
    return reps * 2 / (time.perf_counter() - t)


if __name__ == "__main__":
    main(*sys.argv[1:])
