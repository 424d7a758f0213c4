"""The pipeline's answer settings: validated as transformers validates them,
given their defaults as it does, and turned into qa-shard's flags.

transformers 4.5x (`QuestionAnsweringPipeline._sanitize_parameters` and
`preprocess`): top_k >= 1 and max_answer_len >= 1 or ValueError; `topk` is
a deprecated alias of top_k (UserWarning); max_seq_len defaults to
min(tokenizer.model_max_length, 384) and doc_stride to
min(max_seq_len // 2, 128); a doc_stride above max_seq_len is a
ValueError. max_question_len only bounds the question of slow tokenizers
(squad_convert_examples_to_features); the fast path, which qa-shard
reproduces, ignores it, and so does qa-shard. padding does not change an
answer.
"""

from __future__ import annotations

import json
import operator
import os
import warnings
from typing import Any, Dict, List, NamedTuple, Optional

#: The call's keyword arguments that are answer settings.
NAMES = ("top_k", "topk", "doc_stride", "max_answer_len", "max_seq_len", "max_question_len",
         "handle_impossible_answer", "align_to_words", "padding", "legacy_top_k")


class Settings(NamedTuple):
    """Everything qa-shard's answers depend on: a run's flags, or each
    record's own settings."""

    top_k: int
    doc_stride: int
    max_answer_len: int
    max_seq_len: int
    handle_impossible_answer: bool
    align_to_words: bool
    legacy_top_k: bool

    def record(self) -> Dict[str, Any]:
        """These settings as a record's own (qa-shard's --settings-field):
        transformers' names."""
        return {"top_k": self.top_k, "doc_stride": self.doc_stride, "max_answer_len": self.max_answer_len,
                "max_seq_len": self.max_seq_len, "handle_impossible_answer": self.handle_impossible_answer,
                "align_to_words": self.align_to_words, "legacy_top_k": self.legacy_top_k}

    def flags(self) -> List[str]:
        """qa-shard's flags for these settings."""
        return ["--top-k", str(self.top_k), "--doc-stride", str(self.doc_stride),
                "--max-answer-len", str(self.max_answer_len), "--max-seq-len", str(self.max_seq_len),
                "--handle-impossible-answer=%s" % _bool(self.handle_impossible_answer),
                "--align-to-words=%s" % _bool(self.align_to_words),
                "--legacy-top-k=%s" % _bool(self.legacy_top_k)]


def _bool(v: bool) -> str:
    return "true" if v else "false"


def sanitize(kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """The settings among kwargs, checked as transformers checks them."""
    out = {k: kwargs[k] for k in NAMES if kwargs.get(k) is not None}
    if "topk" in out:
        topk = out.pop("topk")
        if "top_k" not in out:
            warnings.warn("topk parameter is deprecated, use top_k instead", UserWarning, stacklevel=3)
            out["top_k"] = topk
    for name in ("top_k", "doc_stride", "max_answer_len", "max_seq_len", "max_question_len"):
        if name in out:
            out[name] = _int(name, out[name])
    if out.get("top_k", 1) < 1:
        raise ValueError("top_k parameter should be >= 1 (got %d)" % out["top_k"])
    if out.get("max_answer_len", 1) < 1:
        raise ValueError("max_answer_len parameter should be >= 1 (got %d)" % out["max_answer_len"])
    for name in ("handle_impossible_answer", "align_to_words", "legacy_top_k"):
        if name in out:
            out[name] = bool(out[name])
    return out


def _int(name: str, v: Any) -> int:
    if isinstance(v, bool):
        raise TypeError("%s must be an integer (got %r)" % (name, v))
    try:
        return operator.index(v)
    except TypeError:
        raise TypeError("%s must be an integer (got %r)" % (name, v)) from None


def resolve(given: Dict[str, Any], model_max_length: Optional[int]) -> Settings:
    """The settings of one call: those given (sanitized), else
    transformers' defaults."""
    max_seq_len = given.get("max_seq_len")
    if max_seq_len is None:
        max_seq_len = min(model_max_length, 384) if model_max_length else 384
    doc_stride = given.get("doc_stride")
    if doc_stride is None:
        doc_stride = min(max_seq_len // 2, 128)
    if doc_stride > max_seq_len:
        raise ValueError("`doc_stride` (%d) is larger than `max_seq_len` (%d)" % (doc_stride, max_seq_len))
    return Settings(top_k=given.get("top_k", 1), doc_stride=doc_stride,
                    max_answer_len=given.get("max_answer_len", 15), max_seq_len=max_seq_len,
                    handle_impossible_answer=given.get("handle_impossible_answer", False),
                    align_to_words=given.get("align_to_words", True),
                    legacy_top_k=given.get("legacy_top_k", False))


def model_max_length(model: str) -> Optional[int]:
    """tokenizer_config.json's model_max_length in the model folder, if it
    gives a usable one (transformers' default max_seq_len is the smaller of
    it and 384)."""
    try:
        with open(os.path.join(model, "tokenizer_config.json"), encoding="utf-8") as f:
            v = json.load(f).get("model_max_length")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(v, (int, float)) and not isinstance(v, bool) and 0 < v < 1e9:
        return int(v)
    return None
