"""qa_shard.answer_batch: a whole job of many documents, run as files.

The documents are written to <workdir>/input.jsonl (left as it is when
its text is unchanged, so a resume finds the file it started on), qa-shard
answers them into <workdir>/answers.jsonl with its journal beside it,
and the records come back in input order. resume=True (the default)
passes --resume: a job stopped by Ctrl-C, a signal, a failed device or a
full disk continues where it stopped when called again with the same
documents and workdir, and a complete one is read back without running
again; resume=False starts over (--overwrite). Progress comes from
qa-shard's progress log lines, to a callback or as one line on standard
error.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Union

from .binary import checked_binary
from .errors import RecordsError, UsageError, from_exit
from .pipeline import devices_flag
from .process import Log, environ
from .settings import model_max_length, resolve, sanitize

Progress = Callable[[Dict[str, Any]], None]


def answer_batch(documents: Union[Iterable[Dict[str, Any]], Any, str, os.PathLike], *, model: Union[str, os.PathLike],
                 workdir: Union[str, os.PathLike], questions: Sequence[str] = (), resume: bool = True,
                 progress: Union[bool, Progress] = True, devices: Optional[str] = None, device: Any = None,
                 binary: Optional[str] = None, max_errors: Optional[str] = None, args: Sequence[str] = (),
                 env: Optional[Dict[str, str]] = None, **settings: Any) -> Any:
    """Answers every document and returns qa-shard's records in input
    order (one per document and question: id, question, answer, score,
    start, end, windows; answers with top_k > 1; an error record in place
    of one that could not be answered). A pandas DataFrame in gives a
    DataFrame out.

    documents: dicts (context, and optionally id, question, questions), a
    pandas DataFrame with those columns, or a path (file, folder or glob
    of qa-shard's input formats) read in place. questions: asked of every
    document, before each document's own. progress: True draws a line on
    standard error, a callable gets each progress line's fields (docs,
    total, percent, eta, docs_per_s...: docs/running.md) and finally the
    summary's (msg "summary"), False shows nothing. max_errors: as
    --max-errors (default 0: any error record raises RecordsError, which
    carries every record). The settings (top_k, doc_stride,
    max_answer_len, max_seq_len, handle_impossible_answer,
    align_to_words, legacy_top_k) are the pipeline's."""
    workdir = os.fspath(workdir)
    os.makedirs(workdir, exist_ok=True)
    model = os.fspath(model)
    frame = _dataframe(documents)
    output = os.path.join(workdir, "answers.jsonl")
    if isinstance(documents, (str, os.PathLike)):
        source = os.fspath(documents)
    else:
        source = os.path.join(workdir, "input.jsonl")
        rows = frame.to_dict(orient="records") if frame is not None else documents
        _write_input(rows, source, resume and os.path.exists(output + ".journal"))
    unknown = set(settings) - {"top_k", "topk", "doc_stride", "max_answer_len", "max_seq_len", "max_question_len",
                               "handle_impossible_answer", "align_to_words", "legacy_top_k"}
    if unknown:
        raise TypeError("answer_batch() got unexpected keyword arguments: %s" % ", ".join(sorted(unknown)))
    argv = [checked_binary(binary), "--model", model, "--input", source, "--output", output,
            "--log-format", "json", "--progress-interval", "1s", "--resume" if resume else "--overwrite"]
    argv += resolve(sanitize(settings), model_max_length(model)).flags()
    if isinstance(questions, str):
        questions = [questions]
    for q in questions:
        argv += ["--question", q]
    flag = devices_flag(devices, device)
    if flag is not None:
        argv += ["--devices", flag]
    if max_errors is not None:
        argv += ["--max-errors", str(max_errors)]
    argv += list(args)
    code, log = _run(argv, environ(env), _reporter(progress))
    if code not in (0, 3):
        raise from_exit(code, log.message(), log.lines)
    records = read_records(output)
    if code == 3:
        err = from_exit(code, log.message(), log.lines)
        assert isinstance(err, RecordsError)
        err.answers = records
        raise err
    if frame is not None:
        return sys.modules["pandas"].DataFrame(records)
    return records


def _dataframe(documents: Any) -> Any:
    """documents if it is a pandas DataFrame (pandas is then imported)."""
    pd = sys.modules.get("pandas")
    return documents if pd is not None and isinstance(documents, pd.DataFrame) else None


def _write_input(documents: Iterable[Dict[str, Any]], path: str, resuming: bool) -> None:
    """Writes the documents as JSONL, keeping an existing file with the
    same text (a resume checks the text it read before, and a rewritten
    file would look changed to a finished part). Resuming, other documents
    are refused: qa-shard's --resume of a complete run does not look at
    its input again, and would return the answers of the old ones."""
    tmp = path + ".tmp"
    digest = hashlib.sha256()
    with open(tmp, "wb") as f:
        for i, doc in enumerate(documents):
            if not isinstance(doc, dict):
                raise TypeError("document %d is a %s, not a dict with a context" % (i, type(doc).__name__))
            line = (json.dumps(_plain(doc), ensure_ascii=False, default=_scalar) + "\n").encode("utf-8")
            digest.update(line)
            f.write(line)
    if os.path.exists(path) and _sha256(path) == digest.hexdigest():
        os.remove(tmp)
        return
    if resuming:
        os.remove(tmp)
        raise UsageError("the documents differ from those the answers in %s were made from: call with "
                         "resume=False to answer them from the start, or give another workdir" % os.path.dirname(path),
                         2)
    os.replace(tmp, path)


def _plain(doc: Dict[str, Any]) -> Dict[str, Any]:
    """A document without the NaN of a DataFrame's missing values."""
    return {k: v for k, v in doc.items() if not (isinstance(v, float) and v != v)}


def _scalar(v: Any) -> Any:
    """numpy scalars (a DataFrame's ints and floats) as Python's."""
    if hasattr(v, "item"):
        return v.item()
    raise TypeError("%s is not JSON serializable" % type(v).__name__)


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def read_records(path: str) -> List[Dict[str, Any]]:
    """qa-shard's answer records from a JSONL output, in order."""
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _run(argv: List[str], env: Optional[Dict[str, str]], report: Optional[Progress]):
    """Runs qa-shard to its end, reporting its progress; an exception here
    (Ctrl-C, or one the callback raised) stops it with SIGINT, as a person
    would, so that it saves what is done, and is raised once it exited."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    log = Log()  # read here, not by a thread: the callback runs in the caller's thread
    try:
        for raw in proc.stderr:
            event = log.take(raw.decode("utf-8", "replace").rstrip("\n"))
            if report is not None and event is not None and event.get("msg") in ("progress", "summary"):
                report(event)
        proc.wait()
    except BaseException:
        _stop(proc)
        raise
    finally:
        proc.stderr.close()
    return proc.returncode, log


def _stop(proc: subprocess.Popen) -> None:
    """SIGINT (qa-shard saves what is done and exits 75), then waits; a
    second interrupt while it saves kills it."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait()
    except BaseException:
        proc.kill()
        proc.wait()
        raise


def _reporter(progress: Union[bool, Progress]) -> Optional[Progress]:
    if callable(progress):
        return progress
    if not progress:
        return None
    return _ProgressLine(sys.stderr)


class _ProgressLine:
    """One line of progress on a stream, redrawn on a terminal."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.tty = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, event: Dict[str, Any]) -> None:
        if event.get("msg") == "summary":
            text = "qa-shard: %s documents answered in %.1f s" % (format(event.get("documents", 0), ","), event.get("wall", 0.0))
        else:
            text = "qa-shard: %s" % format(event.get("docs", 0), ",")
            if event.get("total"):
                text += "/%s" % format(event["total"], ",")
            text += " documents"
            if "percent" in event:
                text += " %.1f%%" % event["percent"]
            if "eta" in event:
                text += " ETA %s" % _duration(event["eta"])
            text += " (%.1f documents/s)" % event.get("docs_per_s", 0.0)
        end = "\n" if not self.tty or event.get("msg") == "summary" else ""
        self.stream.write(("\r\x1b[K" if self.tty else "") + text + end)
        self.stream.flush()


def _duration(seconds: Any) -> str:
    """A progress line's eta (seconds) as 1h02m03s, 2m03s or 3s."""
    s = int(seconds)
    h, m = s // 3600, s // 60 % 60
    if h:
        return "%dh%02dm%02ds" % (h, m, s % 60)
    if m:
        return "%dm%02ds" % (m, s % 60)
    return "%ds" % s
