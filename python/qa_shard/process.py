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


class Retired(Exception):
    """A call reached a process its pipeline has retired (closed to make
    room, or at close()): the pipeline asks another, or says it is
    closed."""


class _Call:
    """One call in flight: the answers of ids first..first+n-1, filled by
    the reader thread in order, and its end (done, or error)."""

    def __init__(self, first: int, n: int):
        self.first = first
        self.n = n
        self.out: List[Dict[str, Any]] = []
        self.error: Optional[BaseException] = None
        self.done = threading.Event()


class Process:
    """A qa-shard reading records on standard input and writing answers on
    standard output, started with argv (its flags for the run).

    Calls from several threads are in flight together: each sends its
    records (one call's records in a row, under a lock) and waits, while
    one reader thread hands the answers, which come back in the order the
    records went, to the calls they belong to. Records sent close together
    batch together in qa-shard."""

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
        self._send = threading.Lock()  # one call's records go in a row
        self._lock = threading.Lock()  # the calls in flight, _next, broken
        self._calls: Deque[_Call] = collections.deque()
        self._next = 0
        self._ended = False  # the reader saw the end of standard output
        self.retired = False  # see retire
        self.broken: Optional[BaseException] = None
        self._reader: Optional[threading.Thread] = None
        self.log.ready.wait()
        if not self.log.started:
            self.close()
            raise self._failure("qa-shard ended before it started")
        self._reader = threading.Thread(target=self._read, name="qa-shard stdout", daemon=True)
        self._reader.start()

    @property
    def pid(self) -> int:
        return self.proc.pid

    @property
    def in_flight(self) -> int:
        """How many calls are waiting for answers."""
        with self._lock:
            return len(self._calls)

    def ask(self, pairs: Sequence[Tuple[str, str]], settings: Optional[Dict[str, Any]] = None) -> List[Dict[str, Any]]:
        """The answer records of (question, context) pairs, in order, each
        answered with settings (qa-shard's --settings-field object; None:
        the run's flags). Any failure, an interrupt included, ends the
        process (its stream would be out of step) and fails every call in
        flight: the caller makes a new one."""
        # Encoded before anything is sent: a text that cannot be (a lone
        # surrogate) raises here and leaves the process as it was.
        extra = {} if settings is None else {"settings": settings}
        lines = [json.dumps(dict({"question": q, "context": c}, **extra), ensure_ascii=False).encode("utf-8")
                 for q, c in pairs]
        with self._send:
            if self.retired:
                raise Retired()
            with self._lock:
                if self.broken is not None:
                    raise QAShardError("this qa-shard process was stopped after a failed call (%s); a new call "
                                       "starts another" % (self.broken,))
                ended = self._ended or self.proc.poll() is not None
                if not ended:
                    call = _Call(self._next, len(lines))
                    self._next += len(lines)
                    self._calls.append(call)
            if ended:
                # Ended between two calls (killed, say): said once, then the
                # caller makes a new one.
                self.broken = self._failure("qa-shard ended before this call")
                self.close()
                raise self.broken
            try:
                self.proc.stdin.write(b"".join(b'{"id":"%d",' % (call.first + i) + line[1:] + b"\n"
                                               for i, line in enumerate(lines)))
                self.proc.stdin.flush()
            except OSError:
                pass  # qa-shard ended: the reader fails the call with its last words
            except BaseException as e:  # interrupted while sending
                self._break(e)
                raise
        try:
            call.done.wait()
        except BaseException as e:  # interrupted while waiting
            self._break(e)
            raise
        if call.error is not None:
            raise call.error
        return call.out

    def retire(self) -> None:
        """Ends the process for good: a call made from now on raises
        Retired, the calls in flight get their answers (qa-shard finishes
        what it has read), then it exits and is reaped."""
        with self._send:  # no call is between its check and its records
            self.retired = True
        self.close()

    def _read(self) -> None:
        """The reader thread: each answer line goes to the oldest call in
        flight, which must be waiting for its id; at the end of the
        stream every call still in flight fails with qa-shard's last
        words."""
        try:
            for raw in self.proc.stdout:
                rec = json.loads(raw)
                with self._lock:
                    call = self._calls[0] if self._calls else None
                    want = None if call is None else str(call.first + len(call.out))
                    if call is None or rec.get("id") != want:
                        raise QAShardError("qa-shard answered record %r where %r was expected" % (rec.get("id"), want))
                    call.out.append(rec)
                    if len(call.out) == call.n:
                        self._calls.popleft()
                        call.done.set()
        except BaseException as e:
            self._break(e)
            return
        with self._lock:
            self._ended = True  # a call made from now on is refused, not left waiting
            pending = list(self._calls)
        if pending:
            got = sum(len(c.out) for c in pending)
            self._break(self._failure("qa-shard ended after %d of %d answers" % (got, sum(c.n for c in pending))))

    def _break(self, why: BaseException) -> None:
        """Ends the process after a failure (why) and fails every call in
        flight with it."""
        with self._lock:
            if self.broken is None:
                self.broken = why
            pending = list(self._calls)
            self._calls.clear()
        self.close(at_once=True)
        for call in pending:
            call.error = why
            call.done.set()

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
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(TERM_WAIT_S)  # it reads to the end: the process exited
        for s in (p.stdin, p.stdout):
            try:
                s.close()
            except OSError:
                pass
        self.log.join(TERM_WAIT_S)
        return p.returncode


def environ(extra: Optional[Dict[str, str]]) -> Dict[str, str]:
    """The environment for qa-shard: this process's, plus extra, plus this
    package's release (a qa-shard of another refuses to run)."""
    from . import __version__
    from .binary import PACKAGE_ENV

    env = dict(os.environ)
    env.update(extra or {})
    env[PACKAGE_ENV] = __version__
    return env
