"""The pipeline call's inputs, read as transformers 4.5x's
QuestionAnsweringArgumentHandler reads them.

Positional arguments: one is the input (a dict, a list of dicts or
examples, a generator); two strings are (question, context); more are a
list of inputs. Else X= or data= (the input), else question= and
context=: two strings, a list of questions and one context (each question
asked of it), or two lists of the same length (pairs). A dict is one
input. Every item is a dict with "question" and "context" (KeyError when
one is missing, ValueError when None or empty) or a SquadExample-like
object (question_text, context_text). A generator or a torch Dataset
(map-style, such as transformers' KeyDataset, or an IterableDataset) is
read lazily and answered as an iterator, as transformers does; other
iterables are read into a list. A text that cannot be UTF-8 (a lone
surrogate) is a ValueError naming where it is.
"""

from __future__ import annotations

import types
from collections.abc import Iterable
from typing import Any, Dict, Iterator, List, Tuple, Union

Pair = Tuple[str, str]  # (question, context)


def examples(args: tuple, kwargs: Dict[str, Any]) -> Union[List[Pair], Iterator[Pair]]:
    """The call's (question, context) pairs: a list, or an iterator for a
    generator (as transformers returns one)."""
    if args:
        if len(args) == 1:
            inputs = args[0]
        elif len(args) == 2 and {type(a) for a in args} == {str}:
            inputs = [{"question": args[0], "context": args[1]}]
        else:
            inputs = list(args)
    elif "X" in kwargs:
        inputs = kwargs["X"]
    elif "data" in kwargs:
        inputs = kwargs["data"]
    elif "question" in kwargs and "context" in kwargs:
        q, c = kwargs["question"], kwargs["context"]
        if isinstance(q, list) and isinstance(c, str):
            inputs = [{"question": one, "context": c} for one in q]
        elif isinstance(q, list) and isinstance(c, list):
            if len(q) != len(c):
                raise ValueError("Questions and contexts don't have the same lengths")
            inputs = [{"question": one, "context": ctx} for one, ctx in zip(q, c)]
        elif isinstance(q, str) and isinstance(c, str):
            inputs = [{"question": q, "context": c}]
        else:
            raise ValueError("Arguments can't be understood")
    else:
        raise ValueError("Unknown arguments %s" % (kwargs,))
    if isinstance(inputs, types.GeneratorType):
        return (normalize(item) for item in inputs)
    if is_torch_dataset(inputs):
        return (normalize(item) for item in dataset_items(inputs))
    if isinstance(inputs, dict):
        inputs = [inputs]
    elif isinstance(inputs, Iterable):
        inputs = list(inputs)
    else:
        raise ValueError("Invalid arguments %s" % (kwargs,))
    return [normalize(item) for item in inputs]


def normalize(item: Any) -> Pair:
    """One input as (question, context)."""
    if isinstance(item, dict):
        for k in ("question", "context"):
            if k not in item:
                raise KeyError("You need to provide a dictionary with keys {question:..., context:...}")
            if item[k] is None:
                raise ValueError("`%s` cannot be None" % k)
            if isinstance(item[k], str) and len(item[k]) == 0:
                raise ValueError("`%s` cannot be empty" % k)
        q, c = item["question"], item["context"]
    elif hasattr(item, "question_text") and hasattr(item, "context_text"):
        q, c = item.question_text, item.context_text  # transformers.SquadExample
    else:
        raise ValueError("%s argument needs to be of type (SquadExample, dict)" % (item,))
    for name, v in (("question", q), ("context", c)):
        if not isinstance(v, str):
            raise ValueError("`%s` must be a string (got %s)" % (name, type(v).__name__))
        try:
            v.encode("utf-8")
        except UnicodeEncodeError as e:
            raise ValueError("`%s` holds %r at character %d, a lone surrogate, which is no Unicode character and "
                             "cannot be tokenized (text decoded with errors='surrogateescape' or a broken "
                             "surrogate pair): decode it with errors='replace', or drop it" % (name, v[e.start], e.start)) from None
    return q, c


def is_torch_dataset(x: Any) -> bool:
    """Whether x is a torch.utils.data Dataset (without importing torch)."""
    return any(c.__name__ == "Dataset" and c.__module__.startswith("torch.utils.data") for c in type(x).__mro__)


def dataset_items(ds: Any) -> Iterator[Any]:
    """A Dataset's items as transformers' pipeline reads them: by index
    for a map-style one, by iteration for an IterableDataset."""
    iterable = any(c.__name__ == "IterableDataset" and c.__module__.startswith("torch.utils.data") for c in type(ds).__mro__)
    if not iterable and hasattr(ds, "__len__") and hasattr(ds, "__getitem__"):
        for i in range(len(ds)):
            yield ds[i]
        return
    yield from iter(ds)
