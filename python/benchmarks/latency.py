"""The latency of one short pipeline call (make bench-python): a question
about a two-sentence context, asked of a kept pipeline, REPS times after a
warm-up; the median and the 90th percentile, with the load average and
the CPU beside them.

    python latency.py MODEL [REPS]
"""

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
    ts.sort()
    print("load average %s; %s" % (" ".join(load), cpu[0] if cpu else "cpu: ?"))
    print("one short call, %d calls: median %.2f ms, 90th percentile %.2f ms (model %s)"
          % (reps, 1000 * statistics.median(ts), 1000 * ts[int(0.9 * len(ts))], model))


if __name__ == "__main__":
    main(*sys.argv[1:])
