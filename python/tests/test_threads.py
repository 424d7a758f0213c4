"""Calls from several threads: one qa-shard process serves every call
setting (each record carries its own), the calls are in flight together,
and each thread gets its own answers."""

import concurrent.futures
import json
import os
import stat
import sys
import tempfile
import textwrap
import threading
import time
import unittest

import qa_shard
from qa_shard.pipeline import result
from qa_shard.process import Retired

from . import support

#: Each thread's call settings: every per-call setting, mixed.
SETTINGS = [{}, {"top_k": 3}, {"max_seq_len": 96, "doc_stride": 32}, {"handle_impossible_answer": True, "top_k": 2},
            {"align_to_words": False, "max_answer_len": 4}, {"top_k": 4, "legacy_top_k": True}]


class TestThreads(unittest.TestCase):
    def setUp(self):
        support.require(self)

    def test_threads_mixed_settings(self):
        """Twelve threads, each calling repeatedly with its own settings,
        through one process: every answer equals the CLI's with the same
        settings as flags (scores within support's tolerance: the batches
        differ), and no call started another process."""
        pairs = support.pairs()
        flags = {0: [], 1: ["--top-k", "3"], 2: ["--max-seq-len", "96", "--doc-stride", "32"],
                 3: ["--top-k", "2", "--handle-impossible-answer"], 4: ["--align-to-words=false", "--max-answer-len", "4"],
                 5: ["--top-k", "4", "--legacy-top-k"]}
        want = {i: [result(rec, SETTINGS[i].get("top_k", 1)) for rec in support.cli_answers(pairs, *flags[i])]
                for i in flags}
        qa = qa_shard.pipeline("question-answering", model=support.model(), binary=support.binary(),
                               args=["--tune-cache", "none"], devices="cpu")
        self.addCleanup(qa.close)
        pids = qa.pids

        def work(t):
            i = t % len(SETTINGS)
            got = []
            for _ in range(3):
                got.append([qa(question=q, context=c, **SETTINGS[i]) for q, c in pairs[t % 3::3]])
                got.append(qa(question=[q for q, _ in pairs], context=[c for _, c in pairs], **SETTINGS[i]))
            return i, t, got

        with concurrent.futures.ThreadPoolExecutor(12) as ex:
            for i, t, got in ex.map(work, range(12)):
                for n, answers in enumerate(got):
                    expect = want[i][t % 3::3] if n % 2 == 0 else want[i]
                    support.assert_same_results(self, answers, expect, "thread %d, settings %s, call %d" % (t, SETTINGS[i], n))
        self.assertEqual(qa.pids, pids, "one process served every setting")


class TestRetired(unittest.TestCase):
    def setUp(self):
        support.require(self)

    def test_call_on_a_retired_process(self):
        """A thread holding a process the pipeline closed to make room (a
        call with longer windows, max_processes=1) gets Retired from it,
        not a failure, and the pipeline's call goes to the process kept."""
        qa = qa_shard.pipeline("question-answering", model=support.model(), binary=support.binary(),
                               args=["--tune-cache", "none"], devices="cpu", max_processes=1)
        self.addCleanup(qa.close)
        q, c = support.QUESTIONS[0], support.contexts()[0]
        want = qa(question=q, context=c)
        _, first = qa._process(384)
        qa(question=q, context=c, max_seq_len=512)
        self.assertTrue(first.retired)
        self.assertEqual(first.proc.returncode, 0, "retired: its input ended, it finished and exited 0")
        with self.assertRaises(Retired):
            first.ask([(q, c)])
        self.assertEqual(qa(question=q, context=c), want, "the call went to the process kept")


#: A stand-in for qa-shard: says it started, then answers nothing until
#: it has read WAIT records, then answers every record (its answer names
#: its question and its top_k setting). Calls that waited for each other
#: would never get there.
STAND_IN = textwrap.dedent("""\
    import json, os, sys
    if sys.argv[1:] == ["version"]:
        print("qa-shard dev")
        sys.exit(0)
    sys.stderr.write(json.dumps({"level": "info", "msg": "starting"}) + "\\n")
    sys.stderr.flush()
    wait, held = int(os.environ["STAND_IN_WAIT"]), []
    def answer(rec):
        text = "%s|%d" % (rec["question"], rec["settings"]["top_k"])
        one = {"answer": text, "score": 1.0, "start": 0, "end": 0}
        sys.stdout.write(json.dumps(dict(one, id=rec["id"], answers=[one])) + "\\n")
    for line in sys.stdin:
        rec = json.loads(line)
        if held is not None:
            held.append(rec)
            if len(held) < wait:
                continue
            rec, recs, held = None, held, None
            for r in recs:
                answer(r)
        else:
            answer(rec)
        sys.stdout.flush()
    """)


class TestInFlightTogether(unittest.TestCase):
    def test_calls_in_flight_together(self):
        """Eight threads each make one call; the stand-in answers none
        before it has all eight: every call returns, with its own
        answer, only because they were all sent before any was answered."""
        threads = 8
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "qa-shard")
            with open(path, "w") as f:
                f.write("#!%s\n%s" % (sys.executable, STAND_IN))
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
            os.makedirs(os.path.join(d, "model"))
            qa = qa_shard.pipeline("question-answering", model=os.path.join(d, "model"), binary=path,
                                   env={"STAND_IN_WAIT": str(threads)})
            self.addCleanup(qa.close)
            got = {}
            barrier = threading.Barrier(threads)

            def call(t):
                barrier.wait()
                got[t] = qa(question="q%d" % t, context="c", top_k=1 + t % 2)

            workers = [threading.Thread(target=call, args=(t,), daemon=True) for t in range(threads)]
            for w in workers:
                w.start()
            deadline = time.monotonic() + 120  # only a hang gets near this: the calls waited for each other
            for w in workers:
                w.join(max(0.0, deadline - time.monotonic()))
            self.assertEqual(sorted(got), list(range(threads)), "every call returned")
            for t, r in got.items():
                want = "q%d|%d" % (t, 1 + t % 2)
                self.assertEqual(r["answer"] if isinstance(r, dict) else None, want, "thread %d got another's answer" % t)


if __name__ == "__main__":
    unittest.main()
