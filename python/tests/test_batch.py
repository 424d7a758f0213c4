"""qa_shard.answer_batch against the real binary: answers in order equal
to qa-shard's own run, progress, resume after a stop, error records."""

import gzip
import json
import os
import subprocess
import sys
import tempfile
import types
import unittest
from unittest import mock

import qa_shard

from . import support


def documents(n=24):
    cs = support.contexts()
    return [{"id": "doc-%d" % i, "context": cs[i % len(cs)] + " Item %d." % i} for i in range(n)]


def cli_records(docs, *flags):
    """qa-shard's records for documents, from a file the test writes."""
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "in.jsonl"), os.path.join(d, "out.jsonl")
        with open(src, "w", encoding="utf-8") as f:
            for doc in docs:
                f.write(json.dumps(doc, ensure_ascii=False) + "\n")
        qs = [a for q in support.QUESTIONS for a in ("--question", q)]
        subprocess.run([support.binary(), "--model", support.model(), "--input", src, "--output", out,
                        "--log-level", "warn"] + support.FLAGS + qs + list(flags), check=True, stderr=subprocess.PIPE)
        return qa_shard.read_records(out)


class BatchCase(unittest.TestCase):
    def setUp(self):
        support.require(self)
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.tmp = d.name

    def batch(self, docs, workdir="work", **kwargs):
        kwargs.setdefault("progress", False)
        return qa_shard.answer_batch(docs, model=support.model(), workdir=os.path.join(self.tmp, workdir),
                                     questions=support.QUESTIONS, binary=support.binary(), devices="cpu",
                                     args=["--tune-cache", "none"], **kwargs)


class TestBatch(BatchCase):
    def test_iterable(self):
        docs = documents()
        events = []
        got = self.batch(iter(docs), progress=events.append, top_k=2)
        self.assertEqual(got, cli_records(docs, "--top-k", "2"))
        self.assertEqual([r["id"] for r in got], [d["id"] for d in docs for _ in support.QUESTIONS])
        self.assertEqual(events[-1]["msg"], "summary")
        self.assertEqual(events[-1]["documents"], len(docs))

        # Called again: the input file is kept as it was, and the complete
        # job is read back.
        src = os.path.join(self.tmp, "work", "input.jsonl")
        mtime = os.stat(src).st_mtime_ns
        self.assertEqual(self.batch(docs, top_k=2), got)
        self.assertEqual(os.stat(src).st_mtime_ns, mtime)

        # Other documents in the same workdir are refused while resuming,
        # and answered from the start with resume=False.
        with self.assertRaisesRegex(qa_shard.UsageError, "resume=False"):
            self.batch(docs[:5], top_k=2)
        self.assertEqual(self.batch(docs[:5], top_k=2, resume=False), got[:10])

    def test_progress_line(self):
        from qa_shard.batch import _ProgressLine
        import io

        out = io.StringIO()
        line = _ProgressLine(out)
        line({"msg": "progress", "docs": 1234, "total": 3000, "percent": 41.13, "eta": 125, "docs_per_s": 10.0})
        line({"msg": "summary", "documents": 3000, "wall": 12.5})
        self.assertEqual(out.getvalue(), "qa-shard: 1,234/3,000 documents 41.1% ETA 2m05s (10.0 documents/s)\n"
                                         "qa-shard: 3,000 documents answered in 12.5 s\n")

    def test_error_records(self):
        docs = documents(4)
        docs[2] = {"id": "empty", "context": ""}
        with self.assertRaises(qa_shard.RecordsError) as cm:
            self.batch(docs)
        e = cm.exception
        self.assertEqual((e.exit_code, e.kind), (3, "records"))
        self.assertIn("error record", e.message)
        self.assertEqual(len(e.answers), 7, "every record, the error record in its place")
        self.assertEqual(e.answers[4]["id"], "empty")
        self.assertIn("empty context", e.answers[4]["error"])
        got = self.batch(docs, workdir="tolerant", max_errors="1")
        self.assertEqual(got, e.answers)

    def test_dataframe(self):
        """A pandas DataFrame in (pandas is not installed here: a stand-in
        with the two methods the helper uses) gives one out."""

        class DataFrame:
            def __init__(self, records):
                self.records = records

            def to_dict(self, orient):
                assert orient == "records"
                return self.records

        fake = types.ModuleType("pandas")
        fake.DataFrame = DataFrame
        docs = documents(3)
        docs[1]["question"] = float("nan")  # a missing value
        with mock.patch.dict(sys.modules, {"pandas": fake}):
            got = self.batch(DataFrame(docs))
        self.assertIsInstance(got, DataFrame)
        docs[1].pop("question")
        self.assertEqual(got.records, cli_records(docs))


class TestResume(BatchCase):
    def test_resume_after_damage(self):
        """A job stopped part way (here by damaged gzip data, which stops
        qa-shard after the documents before the damage, exit 2) continues
        with resume once the file is good, and gives every answer."""
        docs = documents(40)
        members = [gzip.compress("".join(json.dumps(d) + "\n" for d in docs[i:i + 10]).encode(), mtime=0)
                   for i in range(0, 40, 10)]
        path = os.path.join(self.tmp, "corpus.jsonl.gz")
        with open(path, "wb") as f:
            f.write(members[0] + members[1] + b"XXXX" + members[2][4:] + members[3])
        with self.assertRaises(qa_shard.UsageError) as cm:
            self.batch(path)
        self.assertIn("corpus.jsonl.gz", cm.exception.message)
        saved = qa_shard.read_records(os.path.join(self.tmp, "work", "answers.jsonl"))
        self.assertEqual(len(saved), 20 * len(support.QUESTIONS), "the documents before the damage are saved")

        with open(path, "wb") as f:
            f.write(b"".join(members))
        events = []
        got = self.batch(path, progress=events.append)
        self.assertEqual(got, cli_records(docs))
        self.assertEqual(got[:len(saved)], saved)
        self.assertEqual(events[-1]["documents"], 20, "the resumed run answered only the documents left")

    def test_interrupt(self):
        """An exception in the progress callback (as Ctrl-C would be) stops
        qa-shard with SIGINT, waits for it, and is raised; called again,
        the job completes with every answer, wherever it was stopped."""
        docs = documents(60)
        started = []
        real = subprocess.Popen

        def popen(*args, **kwargs):
            started.append(real(*args, **kwargs))
            return started[-1]

        def stop(event):
            raise KeyboardInterrupt

        with mock.patch("qa_shard.batch.subprocess.Popen", popen):
            with self.assertRaises(KeyboardInterrupt):
                self.batch(docs, progress=stop)
        self.assertEqual(len(started), 1)
        self.assertIn(started[0].returncode, (0, 75), "qa-shard exited (saved what it did) and was waited for")
        self.assertEqual(self.batch(docs), cli_records(docs))


if __name__ == "__main__":
    unittest.main()
