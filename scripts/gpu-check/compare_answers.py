#!/usr/bin/env python3
"""compare_answers.py A B [--tol T]: the same answers in two qa-shard outputs.

Every line must agree in id, question, answer text, start, end and error;
scores may differ by at most T (default 1e-3). Prints one summary line;
exit status 1 on any difference, 2 on unreadable input. Standard library
only: it runs on the GPU machine as it is.
"""
import argparse
import json
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--tol", type=float, default=1e-3)
    args = ap.parse_args()
    try:
        a, b = load(args.a), load(args.b)
    except (OSError, ValueError) as e:
        print(f"unreadable: {e}")
        return 2
    if len(a) != len(b) or not a:
        print(f"MISMATCH: {len(a)} vs {len(b)} records")
        return 1
    worst, diffs = 0.0, []
    for i, (x, y) in enumerate(zip(a, b)):
        for key in ("id", "question", "answer", "start", "end", "error"):
            if x.get(key) != y.get(key):
                diffs.append(f"line {i + 1} {key}: {x.get(key)!r} vs {y.get(key)!r}")
        sx, sy = x.get("score"), y.get("score")
        if (sx is None) != (sy is None):
            diffs.append(f"line {i + 1} score: {sx!r} vs {sy!r}")
        elif sx is not None:
            d = abs(sx - sy)
            worst = max(worst, d)
            if d > args.tol:
                diffs.append(f"line {i + 1} score: {sx} vs {sy} (differ by {d:.2e})")
    if diffs:
        print(f"MISMATCH: {len(diffs)} difference(s) in {len(a)} records, first: {'; '.join(diffs[:3])}")
        return 1
    print(f"{len(a)} records identical, scores within {worst:.1e} (tolerance {args.tol:g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
