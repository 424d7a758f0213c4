"""qa-shard from Python: transformers' question-answering pipeline
(removed in transformers 5.3), answered by the qa-shard binary.

    from qa_shard import pipeline      # was: from transformers import pipeline
    qa = pipeline("question-answering", model="models/bert-large-squad")
    qa(question="Who founded the company?", context="...")

pipeline() keeps one qa-shard process for its calls; answer_batch() runs a
whole job of many documents as files, resumable. Failures raise
QAShardError subclasses carrying qa-shard's messages and exit codes.
Arguments, return values and what differs from transformers:
docs/migration.md in the qa-shard repository.
"""

__version__ = "0.1.0"

from .batch import answer_batch, read_records
from .binary import find_binary
from .errors import (BinaryMismatch, BinaryNotFound, InternalError, Interrupted, QAShardError, RecordError, RecordsError,
                     UsageError)
from .pipeline import QuestionAnsweringPipeline, pipeline

__all__ = ["pipeline", "QuestionAnsweringPipeline", "answer_batch", "read_records", "find_binary",
           "QAShardError", "UsageError", "InternalError", "RecordsError", "Interrupted", "RecordError",
           "BinaryNotFound", "BinaryMismatch"]
