"""What the tests that run qa-shard need: the binary, a model, a corpus,
and qa-shard's own answers to compare with.

`make python-test` (part of `make test`) builds build/bin/qa-shard and the
demo model and names them in QA_SHARD_BIN and QA_SHARD_TEST_MODEL; run by
hand from a checkout, the tests find them under build/. Where they are
missing the tests that need them skip, saying what to build, except under
CI=true, where they fail.
"""

import json
import os
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def binary():
    return os.environ.get("QA_SHARD_BIN") or os.path.join(ROOT, "build", "bin", "qa-shard")


def model():
    return os.environ.get("QA_SHARD_TEST_MODEL") or os.path.join(ROOT, "build", "models", "demo")


def require(case: unittest.TestCase) -> None:
    """Skips case (fails it under CI=true) when the binary or model is missing."""
    missing = [p for p in (binary(), os.path.join(model(), "model.onnx")) if not os.path.exists(p)]
    if missing:
        msg = "missing %s: run `make build demo-model` (or `make python-test`)" % ", ".join(missing)
        if os.environ.get("CI") == "true":
            case.fail(msg)
        case.skipTest(msg)


#: CPU sessions for every run of the tests, and no tuning cache written
#: under the user's home.
FLAGS = ["--devices", "cpu", "--tune-cache", "none"]

FILLER = ("The steady village celebrated the public factory. The quiet season financed the international team. "
          "The new garden celebrated the quiet harbor near Chennai. The modest budget covered the old bridge. ")


def contexts():
    """Contexts of one to several windows, with the facts the demo model was
    trained to find, some deep in a long text."""
    return [
        "Acme Corp was founded in 1999 by Marie Dubois in Zürich. Its headquarters are in Geneva.",
        FILLER * 3 + "Lovelace GmbH was founded by Ada Franklin. " + FILLER * 2 + "Its headquarters moved to Montréal in 1965.",
        FILLER * 30 + "Nordwind AG was founded by Kenji Watanabe. " + FILLER * 8 + "Its headquarters are in Oslo.",
        "Its headquarters are in Lyon. " + FILLER * 12 + "Bright Labs was founded by Priya Raman and Tom Okafor.",
    ]


QUESTIONS = ["Who founded the company?", "Where is the headquarters?"]


def pairs():
    """Every (question, context) of the test corpus."""
    return [(q, c) for c in contexts() for q in QUESTIONS]


def cli_answers(pairs_, *flags):
    """qa-shard's own answer records for (question, context) pairs, from a
    run over a file (not standard input), with flags."""
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in.jsonl"), os.path.join(d, "out.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            for i, (q, c) in enumerate(pairs_):
                f.write(json.dumps({"id": "d%d" % i, "question": q, "context": c}, ensure_ascii=False) + "\n")
        subprocess.run([binary(), "--model", model(), "--input", src, "--output", out, "--log-level", "warn",
                        "--max-errors", "100%"] + FLAGS + list(flags), check=True, stderr=subprocess.PIPE)
        with open(out, encoding="utf-8") as f:
            return [json.loads(line) for line in f]


def assert_same_results(case: unittest.TestCase, got, want, msg: str = "", tolerance: float = 1e-5) -> None:
    """Pipeline results equal: the same shape, answers and offsets exactly,
    scores within tolerance, relative to scores above 1 (the default 1e-5:
    runs that batch differently may round differently on another
    processor, as cmd/qa-shard's golden test allows)."""
    case.assertEqual(type(got), type(want), msg)
    if isinstance(want, list):
        case.assertEqual(len(got), len(want), msg)
        for i, (g, w) in enumerate(zip(got, want)):
            assert_same_results(case, g, w, "%s[%d]" % (msg, i), tolerance)
        return
    case.assertEqual({k: v for k, v in got.items() if k != "score"}, {k: v for k, v in want.items() if k != "score"}, msg)
    want_score = float(want["score"])
    case.assertAlmostEqual(got["score"], want_score, delta=tolerance * max(1.0, abs(want_score)), msg=msg)