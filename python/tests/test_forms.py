"""What transformers users pass that is not a plain call: a pipeline
used in forked and spawned worker processes and pickled, model= as an
object or a path to model.onnx, torch Datasets (map-style, KeyDataset,
iterable), and text that cannot be UTF-8."""

import multiprocessing
import os
import pickle
import types
import unittest

import qa_shard
from qa_shard.pipeline import model_spec, result

from . import support

CONTEXT = support.contexts()[0]


def fake_torch_class(name, *bases):
    """A class that looks to the package like torch.utils.data's own
    (the package checks the module and name, never imports torch)."""
    return types.new_class(name, bases, {}, lambda ns: ns.update({"__module__": "torch.utils.data.dataset"}))


Dataset = fake_torch_class("Dataset")
IterableDataset = fake_torch_class("IterableDataset", Dataset)


class Rows(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


class KeyDataset(Dataset):  # transformers.pipelines.pt_utils.KeyDataset's shape
    def __init__(self, dataset, key):
        self.dataset, self.key = dataset, key

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, i):
        return self.dataset[i][self.key]


class Stream(IterableDataset):
    def __init__(self, rows):
        self.rows = rows
        self.read = 0

    def __iter__(self):
        for r in self.rows:
            self.read += 1
            yield r


def ask(qa, item):
    """What a pool's worker runs."""
    return qa(item)


class FormsCase(unittest.TestCase):
    def setUp(self):
        support.require(self)
        self.qa = qa_shard.pipeline("question-answering", model=support.model(), binary=support.binary(),
                                    args=["--tune-cache", "none"], devices="cpu")
        self.addCleanup(self.qa.close)
        self.items = [{"question": q, "context": c} for q, c in support.pairs()]
        self.want = [self.qa(item) for item in self.items]


class TestProcesses(FormsCase):
    def pool_map(self, method):
        ctx = multiprocessing.get_context(method)
        with ctx.Pool(2) as pool:
            return pool.map(ask_with(self.qa), self.items, chunksize=2)

    def test_fork(self):
        """A fork pool's children each start their own qa-shard at their
        first call (the parent's stays the parent's): no false error, the
        same answers, and the parent's process still answers after."""
        got = self.pool_map("fork")
        self.assertEqual(got, self.want)
        self.assertEqual(self.qa(self.items[0]), self.want[0])

    def test_spawn_and_forkserver(self):
        """The pipeline pickles (rebuilt from model and settings), so
        spawn and forkserver pools take it, as Python 3.14's default does."""
        for method in ("spawn", "forkserver"):
            with self.subTest(method=method):
                self.assertEqual(self.pool_map(method), self.want)

    def test_pickle(self):
        again = pickle.loads(pickle.dumps(self.qa))
        self.addCleanup(again.close)
        self.assertIsNot(again, self.qa)
        self.assertEqual(again(self.items[1]), self.want[1])
        with_settings = qa_shard.pipeline("question-answering", model=support.model(), binary=support.binary(),
                                          args=["--tune-cache", "none"], devices="cpu", top_k=2)
        self.addCleanup(with_settings.close)
        copy = pickle.loads(pickle.dumps(with_settings))
        self.addCleanup(copy.close)
        self.assertEqual(copy(self.items[2]), with_settings(self.items[2]))


def ask_with(qa):
    return _Ask(qa)


class _Ask:
    """A picklable callable holding the pipeline (what Pool.map ships)."""

    def __init__(self, qa):
        self.qa = qa

    def __call__(self, item):
        return self.qa(item)


class TestModelForms(FormsCase):
    def test_objects_and_paths(self):
        class Loaded:  # a transformers model: name_or_path is where it was loaded from
            name_or_path = support.model()

        class ConfigOnly:
            config = types.SimpleNamespace(_name_or_path=support.model())

        self.assertEqual(model_spec(Loaded(), "model"), support.model())
        self.assertEqual(model_spec(ConfigOnly(), "model"), support.model())
        self.assertEqual(model_spec(os.path.join(support.model(), "model.onnx"), "model"), support.model())
        self.assertEqual(model_spec("org/name", "model"), "org/name")
        with self.assertRaisesRegex(TypeError, "save_pretrained"):
            model_spec(object(), "model")
        with qa_shard.pipeline("question-answering", model=Loaded(), tokenizer=Loaded(), binary=support.binary(),
                               args=["--tune-cache", "none"], devices="cpu") as qa:
            self.assertEqual(qa(self.items[0]), self.want[0])
        with qa_shard.pipeline("question-answering", model=os.path.join(support.model(), "model.onnx"),
                               binary=support.binary(), args=["--tune-cache", "none"], devices="cpu") as qa:
            self.assertEqual(qa(self.items[0]), self.want[0])

    def test_datasets(self):
        """A map-style Dataset, a KeyDataset over one and an IterableDataset
        are answered as iterators (as transformers does), lazily."""
        rows = Rows(self.items)
        got = self.qa(rows)
        self.assertIsInstance(got, types.GeneratorType)
        self.assertEqual(list(got), self.want)
        keyed = KeyDataset(Rows([{"input": item} for item in self.items]), "input")
        self.assertEqual(list(self.qa(keyed)), self.want)
        stream = Stream(self.items)
        it = self.qa(stream)
        self.assertEqual(stream.read, 0, "an IterableDataset is read only as answers are taken")
        self.assertEqual(next(it), self.want[0])
        self.assertLess(stream.read, len(self.items) + 1)
        self.assertEqual([self.want[0]] + list(it), self.want)
        self.assertEqual(self.qa(tuple(self.items[:2])), self.want[:2], "other iterables give a list")

    def test_surrogates(self):
        for bad in ("Who \ud800 founded it?", CONTEXT + "\udcff"):
            with self.subTest(text=repr(bad[-12:])):
                q, c = (bad, CONTEXT) if bad.startswith("Who") else ("Who founded it?", bad)
                with self.assertRaisesRegex(ValueError, "lone surrogate"):
                    self.qa(question=q, context=c)
        self.assertEqual(self.qa(self.items[0]), self.want[0], "the process is still there")


if __name__ == "__main__":
    unittest.main()
