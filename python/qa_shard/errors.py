"""The exceptions qa-shard's failures become in Python.

Each carries qa-shard's own message and its exit code, and `kind` says
what to do about it, as the exit-code table of `qa-shard --help` does
(docs/resume.md, "Exit codes"): "user" (2: fix the arguments, the model
folder or the input), "records" (3: the run completed with more error
records than it tolerates), "resumable" (75: call again with resume), or
"internal" (1: report it). An answer qa-shard could not give for one input
(an error record) is a RecordError.
"""

from __future__ import annotations

import signal
from typing import Iterable, List, Optional

#: Exit codes of qa-shard and their kinds (cmd/qa-shard/main.go).
EXIT_KINDS = {1: "internal", 2: "user", 3: "records", 75: "resumable"}


class QAShardError(RuntimeError):
    """qa-shard failed. `message` is its own, `exit_code` its exit status
    (None when it did not exit), `kind` what to do, `log` the last lines it
    wrote to standard error."""

    def __init__(self, message: str, exit_code: Optional[int] = None, kind: Optional[str] = None,
                 log: Iterable[str] = ()):
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code
        self.kind = kind or EXIT_KINDS.get(exit_code, "internal")
        self.log: List[str] = list(log)


class UsageError(QAShardError, ValueError):
    """Exit 2: the arguments, the model folder, the input or the outputs
    are wrong; the message says which and what to do."""


class InternalError(QAShardError):
    """Exit 1: a bug or an I/O error; what was written is saved."""


class RecordsError(QAShardError):
    """Exit 3: the job completed with more error records than max_errors
    tolerates. `answers` holds every record, the error records in place."""

    answers: list = []


class Interrupted(QAShardError):
    """Exit 75: stopped and resumable (a signal, every device failed, a full
    disk); call again with resume=True once the cause is gone."""


class RecordError(QAShardError, ValueError):
    """qa-shard gave an error record for one input (an empty context, a
    question too long for a window...): its message says why."""

    def __init__(self, message: str, index: int = 0):
        super().__init__(message, None, "record")
        self.index = index


class BinaryNotFound(QAShardError, FileNotFoundError):
    """No qa-shard binary where the package looks for one."""

    def __init__(self, message: str):
        super().__init__(message, None, "user")


class BinaryMismatch(QAShardError):
    """The qa-shard binary found is of another release than this package."""

    def __init__(self, message: str):
        super().__init__(message, None, "user")


_BY_CODE = {1: InternalError, 2: UsageError, 3: RecordsError, 75: Interrupted}


def from_exit(code: int, message: Optional[str], log: Iterable[str] = (), what: str = "") -> QAShardError:
    """The exception for qa-shard's exit status `code` (a negative code is
    the signal that ended it, as subprocess reports it), with its message;
    what says what the caller saw ("qa-shard ended after 0 of 2
    answers")."""
    if code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = "signal %d" % -code
        text = "qa-shard was ended by %s" % name
        if what:
            text = "%s: %s" % (what, text)
        if message:
            text += " (its last words: %s)" % message
        return QAShardError(text, code, "killed", log)
    cls = _BY_CODE.get(code, QAShardError)
    if not message:
        message = "%sqa-shard exited with code %d" % (what + ": " if what else "", code)
    return cls(message, code, None, log)
