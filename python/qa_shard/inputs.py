"""The pipeline call's inputs, read as transformers 4.5x's
QuestionAnsweringArgumentHandler reads them.

Positional arguments: one is the input (a dict, a list of dicts or
examples, a generator); two strings are (question, context); more are a
list of inputs. Else X= or data= (the input), else question= and
context=: two strings, a list of questions and one context (each question
asked of it), or two lists of the same length (pairs). A dict is one
input. Every item is a dict with "question" and "context" (KeyError when
one is missing, ValueError when None or empty) or a SquadExample-like
object (question_text, context_text). A generator is read lazily.
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
    return q, c
