"""qa_shard.pipeline against the real binary: answers equal to qa-shard's
own run over a file, transformers' return shapes, one process kept across
calls, and closing it (with, close(), collection, interpreter exit)."""

import gc
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import unittest

import qa_shard
from qa_shard.pipeline import result

from . import support


def reaped(pid):
    """Whether pid, a child of this process, has been waited for."""
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return True
    return False


class PipelineCase(unittest.TestCase):
    def setUp(self):
        support.require(self)

    def pipe(self, **kwargs):
        p = qa_shard.pipeline("question-answering", model=support.model(), binary=support.binary(),
                              args=["--tune-cache", "none"], devices="cpu", **kwargs)
        self.addCleanup(p.close)
        return p


class TestAnswers(PipelineCase):
    """The pipeline's answers are qa-shard's: compared with a run of the
    CLI over a file, with the same settings given as flags."""

    CASES = [
        ({}, []),
        ({"top_k": 3}, ["--top-k", "3"]),
        ({"handle_impossible_answer": True, "top_k": 2}, ["--top-k", "2", "--handle-impossible-answer"]),
        ({"align_to_words": False}, ["--align-to-words=false"]),
        ({"max_seq_len": 128}, ["--max-seq-len", "128", "--doc-stride", "64"]),
        ({"max_seq_len": 96, "doc_stride": 32, "max_answer_len": 4}, ["--max-seq-len", "96", "--doc-stride", "32", "--max-answer-len", "4"]),
        ({"top_k": 4, "legacy_top_k": True}, ["--top-k", "4", "--legacy-top-k"]),
    ]

    def test_equal_to_cli(self):
        pairs = support.pairs()
        p = self.pipe()
        for kwargs, flags in self.CASES:
            with self.subTest(settings=kwargs):
                want = [result(rec, kwargs.get("top_k", 1)) for rec in support.cli_answers(pairs, *flags)]
                got = p(question=[q for q, _ in pairs], context=[c for _, c in pairs], **kwargs)
                support.assert_same_results(self, got, want, str(kwargs))
                self.assertGreater(max(rec["windows"] for rec in support.cli_answers(pairs[-2:], *flags)), 1,
                                   "the corpus has a document of several windows")

    def test_defaults_from_pipeline(self):
        """Settings given to pipeline() are every call's defaults; a call's
        own win."""
        pairs = support.pairs()[:2]
        p = self.pipe(top_k=2)
        want2 = [result(rec, 2) for rec in support.cli_answers(pairs, "--top-k", "2")]
        want1 = [result(rec, 1) for rec in support.cli_answers(pairs)]
        self.assertEqual(p(question=[q for q, _ in pairs], context=[c for _, c in pairs]), want2)
        self.assertEqual(p(question=[q for q, _ in pairs], context=[c for _, c in pairs], top_k=1), want1)


class TestShapes(PipelineCase):
    """What a call returns, as transformers returned it."""

    def test_shapes(self):
        p = self.pipe()
        q, c = support.QUESTIONS[0], support.contexts()[0]
        one = p(question=q, context=c)
        self.assertIsInstance(one, dict)
        self.assertEqual(list(one), ["score", "start", "end", "answer"])
        self.assertEqual(one["answer"], c[one["start"]:one["end"]])
        self.assertEqual(p(q, c), one)
        self.assertEqual(p({"question": q, "context": c}), one)
        self.assertEqual(p([{"question": q, "context": c}]), one, "a list of one input gives its result")
        self.assertEqual(p(question=[q, q], context=c), [one, one])
        self.assertEqual(p([]), [])
        three = p(question=q, context=c, top_k=3)
        self.assertIsInstance(three, list)
        self.assertEqual(len(three), 3)
        self.assertEqual(three[0], one)
        gen = p({"question": q, "context": c} for _ in range(70))
        self.assertNotIsInstance(gen, list)
        self.assertEqual(list(gen), [one] * 70)


class TestProcess(PipelineCase):
    def test_one_process_across_calls(self):
        p = self.pipe(max_seq_len=96)
        pids = p.pids
        self.assertEqual(len(pids), 1, "the process starts with the pipeline")
        q, c = support.QUESTIONS[0], support.contexts()[1]
        for kwargs in ({}, {"top_k": 2}, {"align_to_words": False}, {"handle_impossible_answer": True},
                       {"max_seq_len": 64, "doc_stride": 16}, {"max_answer_len": 3}):
            p(question=q, context=c, **kwargs)
        self.assertEqual(p.pids, pids, "every call goes to the same process, whatever its settings")
        p(question=q, context=c, max_seq_len=128)
        self.assertEqual(len(p.pids), 2, "longer windows than the process was started for: a process for them")
        self.assertIn(pids[0], p.pids)
        both = p.pids
        p(question=q, context=c, max_seq_len=112)
        self.assertEqual(p.pids, both, "windows up to 128 tokens: the process for 128 answers")
        p(question=q, context=c, max_seq_len=256)
        self.assertEqual(len(p.pids), 2, "max_processes=2: the least recently used is closed")
        self.assertNotIn(pids[0], p.pids)
        self.assertTrue(reaped(pids[0]))

    def test_close(self):
        with self.pipe() as p:
            p(question="Who founded the company?", context=support.contexts()[0])
            proc = next(iter(p._processes.values())).proc
        self.assertEqual(proc.returncode, 0, "its input ended, qa-shard finished and exited 0")
        self.assertTrue(reaped(proc.pid), "no zombie: the process was waited for")
        self.assertEqual(p.pids, [])
        with self.assertRaisesRegex(qa_shard.QAShardError, "closed"):
            p(question="q", context="c")
        p.close()  # again: nothing to do

    def test_collected(self):
        p = qa_shard.pipeline(model=support.model(), binary=support.binary(), devices="cpu", args=["--tune-cache", "none"])
        proc = next(iter(p._processes.values())).proc
        del p
        gc.collect()
        self.assertEqual(proc.returncode, 0)
        self.assertTrue(reaped(proc.pid))

    def test_interpreter_exit(self):
        """A pipeline never closed is closed at the interpreter's exit: the
        check registered first with atexit runs after the package's
        finalizer and sees qa-shard exited and waited for."""
        script = textwrap.dedent("""
            import atexit, os, sys

            def check():
                try:
                    os.waitpid(PROC.pid, os.WNOHANG)
                    print("not reaped", PROC.returncode)
                except ChildProcessError:
                    print("reaped", PROC.returncode)
                sys.stdout.flush()

            atexit.register(check)
            import qa_shard
            qa = qa_shard.pipeline(model=sys.argv[1], binary=sys.argv[2], devices="cpu", args=["--tune-cache", "none"])
            print(qa(question="Who founded the company?", context="Acme was founded by Marie Dubois.")["answer"])
            PROC = next(iter(qa._processes.values())).proc
        """)
        env = dict(os.environ, PYTHONPATH=os.path.join(support.ROOT, "python"))
        out = subprocess.run([sys.executable, "-c", script, support.model(), support.binary()], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True, text=True)
        self.assertEqual(out.stdout.split("\n")[-2], "reaped 0", out.stdout + out.stderr)

    def test_process_killed(self):
        p = self.pipe()
        q, c = support.QUESTIONS[0], support.contexts()[0]
        want = p(question=q, context=c)
        pid = p.pids[0]
        os.kill(pid, signal.SIGKILL)
        with self.assertRaises(qa_shard.QAShardError) as cm:
            p(question=q, context=c)
        self.assertEqual(cm.exception.kind, "killed")
        self.assertIn("SIGKILL", cm.exception.message)
        self.assertTrue(reaped(pid))
        self.assertEqual(p(question=q, context=c), want, "the next call starts another process")
        self.assertNotEqual(p.pids, [pid])


class TestErrors(PipelineCase):
    def test_record_error(self):
        p = self.pipe()
        with self.assertRaises(qa_shard.RecordError) as cm:
            p(question="Who?", context="   ")
        self.assertIn("empty context", cm.exception.message)
        long_q = " ".join(["who"] * 400)
        with self.assertRaisesRegex(qa_shard.RecordError, "input 1: question leaves no room for the context") as cm:
            p(question=["Who?", long_q], context="Marie founded it.")
        self.assertEqual(cm.exception.index, 1)
        pids = p.pids
        with self.assertRaisesRegex(ValueError, "lone surrogate"):
            p(question="Who?\ud800", context="Marie founded it.")
        self.assertEqual(p.pids, pids, "an error record, or a text that cannot be sent, leaves the process running")
        self.assertEqual(p(question="Who founded the company?", context="Acme was founded by Marie Dubois.")["answer"],
                         "Marie Dubois")

    def test_model_refused(self):
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(qa_shard.UsageError) as cm:
                qa_shard.pipeline(model=d, binary=support.binary(), devices="cpu")
        e = cm.exception
        self.assertEqual((e.exit_code, e.kind), (2, "user"))
        self.assertIn(d, e.message)
        self.assertIsInstance(e, ValueError)

    def test_settings_refused(self):
        with self.assertRaises(qa_shard.UsageError) as cm:
            self.pipe(max_seq_len=64, doc_stride=63)
        self.assertIn("doc stride", cm.exception.message)


if __name__ == "__main__":
    unittest.main()
