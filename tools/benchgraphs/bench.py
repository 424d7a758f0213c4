"""Times ONNX graphs of one model side by side (make bench-graphs): the
same padded batch of B windows of S tokens (the last windows shorter,
their padding masked), THREADS intra-op threads, REPS interleaved
repetitions (graph 1, graph 2, ..., then again), medians. In each
repetition a graph runs once untimed (the previous session's threads may
still be spinning, which would be charged to it), then enough times for
about 0.3 s, timed as a mean. Also the largest logit difference from the
first graph on unpadded tokens, so a faster graph is seen to compute the
same thing.

    python bench.py B S THREADS REPS LABEL=MODEL.onnx ...
"""
import statistics
import sys
import time

import numpy as np
import onnxruntime as ort


def main(batch, seq, threads, reps, *graphs):
    batch, seq, threads, reps = int(batch), int(seq), int(threads), int(reps)
    rng = np.random.default_rng(0)
    ids = rng.integers(1000, 20000, size=(batch, seq), dtype=np.int64)
    mask = np.ones((batch, seq), dtype=np.int64)
    for b in range(1, batch):
        mask[b, seq - 37 * b:] = 0
    sessions = []
    for g in graphs:
        label, path = g.split("=", 1)
        so = ort.SessionOptions()
        so.intra_op_num_threads, so.inter_op_num_threads = threads, 1
        s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
        feed = {"input_ids": ids, "attention_mask": mask}
        if any(i.name == "token_type_ids" for i in s.get_inputs()):
            feed["token_type_ids"] = np.zeros_like(ids)
        sessions.append((label, s, feed))
    first = None
    diffs = []
    for label, s, feed in sessions:
        out = s.run(None, feed)
        if first is None:
            first = out
        diffs.append(max(float(np.max(np.abs((a - b)[mask == 1]))) for a, b in zip(first, out)))
    runs = []
    for _, s, feed in sessions:
        t = time.perf_counter()
        s.run(None, feed)
        runs.append(max(1, round(0.3 / (time.perf_counter() - t))))
    times = [[] for _ in sessions]
    for _ in range(reps):
        for i, (_, s, feed) in enumerate(sessions):
            s.run(None, feed)
            t = time.perf_counter()
            for _ in range(runs[i]):
                s.run(None, feed)
            times[i].append((time.perf_counter() - t) / runs[i])
    base = statistics.median(times[0])
    for (label, _, _), ts, d in zip(sessions, times, diffs):
        m = statistics.median(ts)
        print(f"  {label:34s} {m * 1000:9.1f} ms  {base / m:5.2f}x  max |logit - first's| {d:.1e}")


if __name__ == "__main__":
    main(*sys.argv[1:])
