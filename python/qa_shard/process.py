"""One qa-shard process kept alive: records go to its standard input, one
answer record per (document, question) comes back on its standard output
as each document is done (`--input - --output -`), and standard error
carries its JSON log lines, read by a thread of their own.

qa-shard reads standard input record by record (it does not wait for a
fuller buffer or the next line), and with --id-type given it loads the
model before the first record arrives and logs "starting": a Process is
ready once that line is seen, and a model qa-shard refuses is an
exception when the Process is made, not at the first question.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import threading
from typing import Any, Deque, Dict, List, Optional, Sequence, Tuple

from .errors import QAShardError, from_exit

#: How long close() lets qa-shard finish after its input ended, then after
#: SIGTERM (which stops it at once), before SIGKILL.
CLOSE_WAIT_S = 60.0
TERM_WAIT_S = 10.0


class Log:
    """qa-shard's standard error: its last lines, the run's last words
    (the line that carries exit_code) and whether the run has started.
    follow() reads a stream on a thread of its own; take() keeps a line
    read by the caller."""

    def __init__(self, keep: int = 200):
        self.lines: Deque[str] = collections.deque(maxlen=keep)
        self.final: Optional[str] = None
        self.last_error: Optional[str] = None
        self.other: Optional[str] = None
        self.started = False
        self.ready = threading.Event()  # set on "starting" or at the end of the stream
        self._thread: Optional[threading.Thread] = None

    def follow(self, stream) -> "Log":
        self._thread = threading.Thread(target=self._read, args=(stream,), name="qa-shard stderr", daemon=True)
        self._thread.start()
        return self

    def _read(self, stream) -> None:
        try:
            for raw in stream:
                self.take(raw.decode("utf-8", "replace").rstrip("\n"))
        finally:
            self.ready.set()
            stream.close()

    def take(self, line: str) -> Optional[Dict[str, Any]]:
        """Keeps one line; returns it parsed when it is a JSON log line."""
        if not line:
            return None
        self.lines.append(line)
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        if not isinstance(event, dict):
            self.other = line  # not a log line: a panic's, say
            return None
        msg = str(event.get("msg", ""))
        if "exit_code" in event:
            self.final = msg
        elif event.get("level") in ("error", "fatal", "panic"):
            self.last_error = msg
        if msg == "starting":
            self.started = True
            self.ready.set()
        return event

    def message(self) -> Optional[str]:
        """What qa-shard said last about a failure: the line with its exit
        code, else its last error, else its last line that was not a log
        line; None when it said nothing of one."""
        return self.final or self.last_error or self.other

    def join(self, timeout: Optional[float] = None) -> None:
        if self._thread is not None:
            self._thread.join(timeout)


class Process:
    """A qa-shard reading records on standard input and writing answers on
    standard output, started with argv (its flags for the run)."""

    def __init__(self, argv: Sequence[str], env: Optional[Dict[str, str]] = None):
        self.argv = list(argv)
        # A session of its own: Ctrl-C at an interactive prompt interrupts
        # Python, not the process kept for the next call.
        self.proc = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=env, start_new_session=True)
        # The process that started it: a forked child holds copies of its
        # pipes but must neither talk to it nor stop it (see close).
        self.owner = os.getpid()
        self.log = Log().follow(self.proc.stderr)
        self._lock = threading.Lock()
        self._next = 0
        self.broken: Optional[BaseException] = None
        self.log.ready.wait()
        if not self.log.started:
            self.close()
            raise self._failure("qa-shard ended before it started")

    @property
    def pid(self) -> int:
        return self.proc.pid

    def ask(self, pairs: Sequence[Tuple[str, str]]) -> List[Dict[str, Any]]:
        """The answer records of (question, context) pairs, in order. Any
        failure, an interrupt included, ends the process (its stream would
        be out of step): the caller makes a new one."""
        with self._lock:
            if self.broken is not None:
                raise QAShardError("this qa-shard process was stopped after a failed call (%s); a new call "
                                   "starts another" % (self.broken,))
            if self.proc.poll() is not None:
                # Ended between two calls (killed, say): said once, then
                # the caller makes a new one.
                self.broken = self._failure("qa-shard ended before this call")
                self.close()
                raise self.broken
            first = self._next
            # Encoded before anything is sent: a text that cannot be (a lone
            # surrogate) raises here and leaves the process as it was.
            lines = [(json.dumps({"id": str(first + i), "question": q, "context": c}, ensure_ascii=False) + "\n")
                     .encode("utf-8") for i, (q, c) in enumerate(pairs)]
            self._next += len(pairs)
            try:
                return self._exchange(first, lines)
            except BaseException as e:
                self.broken = e
                self.close(at_once=True)
                raise

    def _exchange(self, first: int, lines: List[bytes]) -> List[Dict[str, Any]]:
        failed: List[BaseException] = []
        # Written by a thread while the answers are read here: a call
        # larger than the pipes' buffers would otherwise deadlock.
        writer = threading.Thread(target=_write, args=(self.proc.stdin, lines, failed), daemon=True)
        writer.start()
        out = []
        for i in range(len(lines)):
            raw = self.proc.stdout.readline()
            if not raw:
                writer.join()
                raise self._failure("qa-shard ended after %d of %d answers" % (i, len(lines)))
            rec = json.loads(raw)
            if rec.get("id") != str(first + i):
                raise QAShardError("qa-shard answered record %r where %r was expected" % (rec.get("id"), str(first + i)))
            out.append(rec)
        writer.join()
        if failed:
            raise failed[0]
        return out

    def _failure(self, what: str) -> QAShardError:
        """The exception for a process that ended: its exit status and its
        last words."""
        try:
            code = self.proc.wait(timeout=CLOSE_WAIT_S)
        except subprocess.TimeoutExpired:
            return QAShardError(what + " and did not exit", None, "internal", self.log.lines)
        self.log.join()
        return from_exit(code, self.log.message(), self.log.lines, what)

    def close(self, at_once: bool = False) -> Optional[int]:
        """Ends the input, lets qa-shard finish and exit (at_once: stops it
        with SIGTERM, for a call cut short), and reaps it (SIGTERM, then
        SIGKILL, if it does not exit in time). Returns the exit status. In a
        forked child it only closes the child's copies of the pipes: the
        process is its parent's."""
        p = self.proc
        if os.getpid() != self.owner:
            for s in (p.stdin, p.stdout, p.stderr):
                try:
                    s.close()
                except OSError:
                    pass
            return None
        if p.returncode is None:
            if at_once:
                p.terminate()  # first: a writer blocked on the pipe then fails, and closing it does not wait
            try:
                p.stdin.close()
            except OSError:
                pass  # its reader is gone already: wait reaps it
            try:
                p.wait(timeout=CLOSE_WAIT_S)
            except subprocess.TimeoutExpired:
                p.terminate()
                try:
                    p.wait(timeout=TERM_WAIT_S)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        for s in (p.stdin, p.stdout):
            try:
                s.close()
            except OSError:
                pass
        self.log.join(TERM_WAIT_S)
        return p.returncode


def _write(stream, lines: List[bytes], failed: List[BaseException]) -> None:
    try:
        for line in lines:
            stream.write(line)
        stream.flush()
    except OSError as e:  # qa-shard ended: the reader reports why
        failed.append(e)


def environ(extra: Optional[Dict[str, str]]) -> Dict[str, str]:
    """The environment for qa-shard: this process's, plus extra, plus this
    package's release (a qa-shard of another refuses to run)."""
    from . import __version__
    from .binary import PACKAGE_ENV

    env = dict(os.environ)
    env.update(extra or {})
    env[PACKAGE_ENV] = __version__
    return env
