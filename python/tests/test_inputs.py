"""The call's arguments, read as transformers 4.5x reads them (no binary
needed): inputs, settings and their defaults, devices, result shapes."""

import unittest
import warnings

from qa_shard import inputs, settings
from qa_shard.pipeline import devices_flag, result


class SquadExample:
    """What transformers.SquadExample offers the pipeline."""

    def __init__(self, question_text, context_text):
        self.question_text, self.context_text = question_text, context_text


class TestInputs(unittest.TestCase):
    def ex(self, *args, **kwargs):
        return inputs.examples(args, kwargs)

    def test_keywords(self):
        self.assertEqual(self.ex(question="q", context="c"), [("q", "c")])
        self.assertEqual(self.ex(question=["q1", "q2"], context="c"), [("q1", "c"), ("q2", "c")])
        self.assertEqual(self.ex(question=["q1", "q2"], context=["c1", "c2"]), [("q1", "c1"), ("q2", "c2")])
        with self.assertRaisesRegex(ValueError, "Questions and contexts don't have the same lengths"):
            self.ex(question=["q1", "q2"], context=["c1"])
        with self.assertRaisesRegex(ValueError, "Arguments can't be understood"):
            self.ex(question="q", context=["c1", "c2"])
        with self.assertRaisesRegex(ValueError, "Unknown arguments"):
            self.ex(question="q")

    def test_positional(self):
        self.assertEqual(self.ex("q", "c"), [("q", "c")])
        self.assertEqual(self.ex({"question": "q", "context": "c"}), [("q", "c")])
        self.assertEqual(self.ex([{"question": "q1", "context": "c"}, SquadExample("q2", "c2")]),
                         [("q1", "c"), ("q2", "c2")])
        self.assertEqual(self.ex({"question": "q1", "context": "c"}, {"question": "q2", "context": "c"}),
                         [("q1", "c"), ("q2", "c")])
        self.assertEqual(self.ex(X=[{"question": "q", "context": "c"}]), [("q", "c")])
        self.assertEqual(self.ex(data={"question": "q", "context": "c"}), [("q", "c")])
        # One SquadExample alone is neither a dict nor iterable: transformers
        # refused it too.
        with self.assertRaisesRegex(ValueError, "Invalid arguments"):
            self.ex(SquadExample("q", "c"))

    def test_generator_is_lazy(self):
        seen = []

        def gen():
            for i in range(3):
                seen.append(i)
                yield {"question": "q%d" % i, "context": "c"}

        it = self.ex(gen())
        self.assertEqual(seen, [], "a generator is read as answers are asked for")
        self.assertEqual(next(it), ("q0", "c"))
        self.assertEqual(list(it), [("q1", "c"), ("q2", "c")])

    def test_bad_items(self):
        with self.assertRaisesRegex(KeyError, "question:..., context:..."):
            self.ex({"question": "q"})
        with self.assertRaisesRegex(ValueError, "`context` cannot be None"):
            self.ex({"question": "q", "context": None})
        with self.assertRaisesRegex(ValueError, "`question` cannot be empty"):
            self.ex(question="", context="c")
        with self.assertRaisesRegex(ValueError, "needs to be of type"):
            self.ex([42])
        with self.assertRaisesRegex(ValueError, "`question` must be a string"):
            self.ex({"question": ["q"], "context": "c"})


class TestSettings(unittest.TestCase):
    def test_defaults(self):
        s = settings.resolve({}, None)
        self.assertEqual((s.top_k, s.doc_stride, s.max_answer_len, s.max_seq_len), (1, 128, 15, 384))
        self.assertEqual((s.handle_impossible_answer, s.align_to_words, s.legacy_top_k), (False, True, False))
        # transformers: max_seq_len = min(model_max_length, 384),
        # doc_stride = min(max_seq_len // 2, 128).
        s = settings.resolve({}, 256)
        self.assertEqual((s.max_seq_len, s.doc_stride), (256, 128))
        self.assertEqual(settings.resolve({"max_seq_len": 200}, 512).doc_stride, 100)
        self.assertEqual(settings.resolve({"max_seq_len": 200, "doc_stride": 50}, None).doc_stride, 50)
        with self.assertRaisesRegex(ValueError, r"`doc_stride` \(300\) is larger than `max_seq_len` \(256\)"):
            settings.resolve({"max_seq_len": 256, "doc_stride": 300}, None)

    def test_checks(self):
        with self.assertRaisesRegex(ValueError, r"top_k parameter should be >= 1 \(got 0\)"):
            settings.sanitize({"top_k": 0})
        with self.assertRaisesRegex(ValueError, "max_answer_len parameter should be >= 1"):
            settings.sanitize({"max_answer_len": 0})
        with self.assertRaises(TypeError):
            settings.sanitize({"top_k": 2.5})
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            self.assertEqual(settings.sanitize({"topk": 3}), {"top_k": 3})
        self.assertIn("topk parameter is deprecated", str(w[0].message))
        self.assertEqual(settings.sanitize({"top_k": 2, "max_question_len": 10, "padding": "longest", "other": 1}),
                         {"top_k": 2, "max_question_len": 10, "padding": "longest"})

    def test_flags(self):
        flags = settings.resolve({"top_k": 3, "handle_impossible_answer": True, "align_to_words": False}, None).flags()
        self.assertEqual(flags, ["--top-k", "3", "--doc-stride", "128", "--max-answer-len", "15", "--max-seq-len", "384",
                                 "--handle-impossible-answer=true", "--align-to-words=false", "--legacy-top-k=false"])


class TestDevices(unittest.TestCase):
    def test_transformers_devices(self):
        for given, want in ((-1, "cpu"), ("cpu", "cpu"), (0, "0"), (1, "1"), ("cuda", "0"), ("cuda:2", "2"), (None, None)):
            self.assertEqual(devices_flag(None, given), want, given)
        self.assertEqual(devices_flag("cpu:2", None), "cpu:2")
        self.assertEqual(devices_flag([0, 1], None), "0,1")
        with self.assertRaisesRegex(ValueError, "mps"):
            devices_flag(None, "mps")
        with self.assertRaisesRegex(ValueError, "not both"):
            devices_flag("cpu", -1)


class TestResult(unittest.TestCase):
    rec = {"id": "0", "question": "q", "answer": "Ada", "score": 0.5, "start": 3, "end": 6, "windows": 1}

    def test_top1(self):
        r = result(self.rec, 1)
        self.assertEqual(list(r), ["score", "start", "end", "answer"])
        self.assertEqual(r, {"score": 0.5, "start": 3, "end": 6, "answer": "Ada"})

    def test_topk(self):
        two = dict(self.rec, answers=[{"answer": "Ada", "score": 0.5, "start": 3, "end": 6},
                                      {"answer": "A", "score": 0.1, "start": 3, "end": 4}])
        self.assertEqual(result(two, 2), [{"score": 0.5, "start": 3, "end": 6, "answer": "Ada"},
                                          {"score": 0.1, "start": 3, "end": 4, "answer": "A"}])
        # transformers returns the answer itself when only one was found.
        one = dict(self.rec, answers=two["answers"][:1])
        self.assertEqual(result(one, 3), {"score": 0.5, "start": 3, "end": 6, "answer": "Ada"})
        self.assertEqual(result(self.rec, 3), [])


if __name__ == "__main__":
    unittest.main()
