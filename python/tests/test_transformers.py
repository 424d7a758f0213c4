"""qa_shard.pipeline against transformers' own QuestionAnsweringPipeline
(4.57, torch on the CPU), on qa-shard's seeded checkpoint of every family
(config.json, model.safetensors and the family's tokenizer: the folders
tools/refcheckpoints writes, which transformers loads as they are), for
every call form of docs/migration.md and the answer settings: the same
answers (text and offsets), scores within 1e-4, the same shapes (dict,
list, iterator).

It needs transformers and torch: `make test-python-reference` runs it with
pytest in build/reference-venv (`make deps-reference` installs them; CI
runs it). Elsewhere it is skipped, saying so.
"""

import json
import os
import subprocess
import sys
import tempfile
import types
import unittest

import qa_shard

from . import support

try:
    import torch
    import transformers
    from transformers.pipelines.pt_utils import KeyDataset
except ImportError as e:  # plain `make test`: no torch there
    transformers = None
    MISSING = str(e)

CHECKPOINTS = os.environ.get("QA_SHARD_REFERENCE_CHECKPOINTS", os.path.join(support.ROOT, "build", "reference", "checkpoints"))
GOLDEN = os.path.join(support.ROOT, "cmd", "qa-shard", "testdata", "golden-docs.jsonl")


def golden_contexts(n):
    with open(GOLDEN, encoding="utf-8") as f:
        docs = [json.loads(line) for line in f if line.strip()]
    return [d["context"] for d in docs[:n]]


def same(test, got, want, where):
    """got equals want as transformers' results: the same structure (an
    iterator where transformers returns one), answers and offsets exactly,
    scores within 1e-4."""
    if isinstance(want, (types.GeneratorType,)) or type(want).__name__ == "PipelineIterator":
        test.assertIsInstance(got, types.GeneratorType, where + ": an iterator, as transformers returns")
        got, want = list(got), list(want)
    support.assert_same_results(test, got, want, where, tolerance=1e-4)


@unittest.skipIf(transformers is None, "needs transformers 4.57 and torch (%s): `make test-python-reference` runs it"
                 % ("" if transformers else MISSING))
class TestAgainstTransformers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        support_missing = [p for p in (support.binary(),) if not os.path.exists(p)]
        if support_missing or not os.path.isdir(CHECKPOINTS):
            raise unittest.SkipTest("missing %s: run `make test-python-reference`" % (support_missing or CHECKPOINTS))
        cls.cache = tempfile.TemporaryDirectory()
        # Every family's folder (the hidden ones hold shared tokenizer
        # material, not a model).
        cls.families = sorted(d for d in os.listdir(CHECKPOINTS) if not d.startswith(".")
                              and os.path.isfile(os.path.join(CHECKPOINTS, d, "config.json")))
        if not cls.families:
            raise AssertionError("no checkpoint under %s: run `make reference-run`" % CHECKPOINTS)

    @classmethod
    def tearDownClass(cls):
        cls.cache.cleanup()

    def pipelines(self, folder):
        hf = transformers.pipeline("question-answering", model=folder, tokenizer=folder, device=-1)
        ours = qa_shard.pipeline("question-answering", model=folder, binary=support.binary(), devices="cpu",
                                 args=["--tune-cache", "none", "--model-cache", self.cache.name])
        self.addCleanup(ours.close)
        return hf, ours

    def test_call_forms(self):
        c1, c2, c3 = golden_contexts(3)
        q1, q2 = "Who founded the company?", "Where is the headquarters?"
        forms = [
            ("question=, context=", (), {"question": q1, "context": c1}),
            ("a dict", ({"question": q2, "context": c2},), {}),
            ("a list of dicts", ([{"question": q1, "context": c1}, {"question": q2, "context": c3}],), {}),
            ("two positional strings", (q1, c2), {}),
            ("questions of one context", (), {"question": [q1, q2], "context": c3}),
            ("two lists", (), {"question": [q1, q2], "context": [c1, c2]}),
            ("X=", (), {"X": [{"question": q2, "context": c1}]}),
            ("data=", (), {"data": {"question": q1, "context": c3}}),
            ("SquadExamples", ([transformers.SquadExample(None, q1, c1, None, None, None),
                                transformers.SquadExample(None, q2, c2, None, None, None)],), {}),
            ("top_k=3", (), {"question": q1, "context": c1, "top_k": 3}),
            ("top_k=2 of several", (), {"question": [q1, q2], "context": c2, "top_k": 2}),
            ("handle_impossible_answer", (), {"question": q2, "context": c3, "handle_impossible_answer": True, "top_k": 2}),
            ("max_answer_len=3", (), {"question": q1, "context": c2, "max_answer_len": 3}),
            ("max_seq_len=128, doc_stride=32", (), {"question": q2, "context": c1, "max_seq_len": 128, "doc_stride": 32}),
            ("align_to_words=False", (), {"question": q1, "context": c3, "align_to_words": False}),
            ("max_question_len", (), {"question": q1, "context": c1, "max_question_len": 8}),
        ]
        for family in self.families:
            folder = os.path.join(CHECKPOINTS, family)
            hf, ours = self.pipelines(folder)
            for name, args, kwargs in forms:
                with self.subTest(family=family, form=name):
                    same(self, ours(*args, **kwargs), hf(*args, **kwargs), "%s, %s" % (family, name))

    def test_iterators(self):
        """A generator, a map-style torch Dataset through KeyDataset, and an
        IterableDataset: iterators both sides, the same answers."""
        contexts = golden_contexts(4)
        rows = [{"question": "Who founded the company?", "context": c} for c in contexts]

        class Rows(torch.utils.data.Dataset):
            def __len__(self):
                return len(rows)

            def __getitem__(self, i):
                return {"item": rows[i]}

        class Stream(torch.utils.data.IterableDataset):
            def __iter__(self):
                return iter(rows)

        family = self.families[0]
        hf, ours = self.pipelines(os.path.join(CHECKPOINTS, family))
        for name, make in (("generator", lambda: (r for r in rows)), ("KeyDataset", lambda: KeyDataset(Rows(), "item")),
                           ("IterableDataset", Stream)):
            with self.subTest(form=name):
                same(self, ours(make()), hf(make()), "%s, %s" % (family, name))


JAPANESE = os.environ.get("QA_SHARD_REFERENCE_JA", os.path.join(support.ROOT, "build", "reference", "ja"))
JAPANESE_MODEL = os.environ.get("QA_SHARD_REFERENCE_JA_MODEL", os.path.join(support.ROOT, "build", "models", "demo-ja"))
JAPANESE_TEXTS = os.path.join(support.ROOT, "tokenizer", "modeldir", "testdata", "japanese", "texts.jsonl.gz")


@unittest.skipIf(transformers is None, "needs transformers 4.57 and torch (%s): `make test-python-reference` runs it"
                 % ("" if transformers else MISSING))
class TestJapaneseAgainstTransformers(unittest.TestCase):
    """The Japanese demo model's tokenizer (BertJapaneseTokenizer: MeCab
    with ipadic, then WordPiece) against transformers' own, which splits
    words with fugashi over pip's ipadic: the first window of every
    (question, context) pair has the same ids, with qa-shard reading pip's
    ipadic and, where Debian's mecab-ipadic-utf8 is installed, Debian's;
    and cl-tohoku's bert-base-japanese-v3 as released (unidic_lite, pip's
    unidic-lite, which qa-shard finds in the environment itself).
    The answers themselves differ by design: transformers answers a slow
    tokenizer through squad_convert_examples_to_features, with whole
    whitespace-separated chunks (docs/migration.md)."""

    def test_first_windows(self):
        import gzip

        import ipadic

        docs_path = os.path.join(JAPANESE, "docs.jsonl")
        missing = [p for p in (docs_path, os.path.join(JAPANESE_MODEL, "vocab.txt"), support.binary()) if not os.path.exists(p)]
        if missing:
            raise unittest.SkipTest("missing %s: run `make test-python-reference`" % ", ".join(missing))
        with open(docs_path, encoding="utf-8") as f:
            texts = [json.loads(line)["context"] for line in f if line.strip()]
        with gzip.open(JAPANESE_TEXTS, "rt", encoding="utf-8") as f:
            texts += [json.loads(line) for line in f][::10]  # man pages, policy, hostile strings
        with open(os.path.join(JAPANESE, "questions.txt"), encoding="utf-8") as f:
            questions = [q.strip() for q in f if q.strip()][:2]
        folders = [(JAPANESE_MODEL, "pip's ipadic", ["--mecab-dicdir", ipadic.DICDIR])]
        if os.path.isfile("/var/lib/mecab/dic/ipadic-utf8/sys.dic"):
            folders.append((JAPANESE_MODEL, "Debian's mecab-ipadic-utf8", ["--mecab-dicdir", "/var/lib/mecab/dic/ipadic-utf8"]))
        real = os.path.join(os.environ.get("QA_SHARD_REAL_TOKENIZERS") or os.path.join(support.ROOT, "..", "shared", "real-tokenizers"),
                            "bert-base-japanese-v3")
        if os.path.isdir(real):  # cl-tohoku's v3 as released: unidic_lite, found by qa-shard in this environment
            folders.append((real, "bert-base-japanese-v3 with pip's unidic-lite", []))
        elif os.environ.get("CI") == "true":
            self.fail("missing %s (kept outside the repository)" % real)
        for folder, name, flags in folders:
            hf = transformers.AutoTokenizer.from_pretrained(folder)
            self.assertEqual(type(hf).__name__, "BertJapaneseTokenizer")
            env = dict(os.environ, VIRTUAL_ENV=sys.prefix)  # where qa-shard looks for pip's dictionaries first
            for q in questions:
                with self.subTest(dictionary=name, question=q):
                    out = subprocess.run([support.binary(), "tokenize", "--model", folder, "--json", "--question", q]
                                         + flags + ["--"] + texts, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True, env=env)
                    ours = [[] for _ in texts]
                    for line in out.stdout.decode("utf-8").splitlines()[1:]:
                        tok = json.loads(line)
                        ours[tok["text"]].append(tok["id"])
                    for i, text in enumerate(texts):
                        want = hf(q, text, truncation="only_second", max_length=384)["input_ids"]
                        self.assertEqual(ours[i], want, "%s, text %d: %r" % (name, i, text[:60]))


if __name__ == "__main__":
    unittest.main()
