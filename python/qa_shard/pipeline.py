"""qa_shard.pipeline: transformers' pipeline("question-answering"),
answered by qa-shard.

A call takes what QuestionAnsweringPipeline.__call__ took in transformers
4.5x (inputs.py) and returns what it returned: one input gives a dict
{"score", "start", "end", "answer"}, or a list of them when top_k > 1 and
more than one answer was found; several inputs give a list of those; a
generator gives an iterator. The answers are qa-shard's, which reproduce
the pipeline of transformers 4.54 and later (legacy_top_k=True: 4.53).

One qa-shard process answers every call: it is started when the pipeline
is made (so a model qa-shard refuses is an exception there) and kept until
close(), the end of a with block, the pipeline's collection or the
interpreter's exit. Each record carries its call's settings (top_k,
doc_stride, max_seq_len...: qa-shard's --settings-field), so calls with
other settings share the process, and calls from several threads are in
flight together and batch together. The one thing a record cannot ask
for is longer windows than its process was started for (the pipeline's
max_seq_len): a call that does starts a process for them and keeps it
too, up to max_processes (the least recently used is closed).
"""

from __future__ import annotations

import collections
import itertools
import os
import threading
import warnings
import weakref
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple, Union

from .binary import checked_binary
from .errors import QAShardError, RecordError
from .inputs import Pair, examples
from .process import Process, Retired, environ
from .settings import NAMES, Settings, model_max_length, resolve, sanitize

#: transformers.pipeline's loading options, accepted and ignored: the
#: model folder (model.onnx, its tokenizer, config.json) decides them.
LOADING_OPTIONS = ("config", "framework", "revision", "use_fast", "token", "use_auth_token", "device_map",
                   "torch_dtype", "dtype", "trust_remote_code", "model_kwargs", "feature_extractor",
                   "image_processor", "processor")
#: The call's options that change nothing here (qa-shard batches itself).
IGNORED_CALL_OPTIONS = ("batch_size", "num_workers")
#: Inputs a generator is cut into, one exchange with qa-shard each.
GENERATOR_CHUNK = 64

Result = Union[Dict[str, Any], List[Dict[str, Any]]]


def pipeline(task: Optional[str] = None, model: Optional[Union[str, os.PathLike]] = None,
             tokenizer: Optional[Union[str, os.PathLike]] = None, *, device: Any = None,
             devices: Optional[Union[str, Sequence[Any]]] = None, binary: Optional[str] = None,
             args: Sequence[str] = (), env: Optional[Dict[str, str]] = None, max_processes: int = 2,
             **kwargs: Any) -> "QuestionAnsweringPipeline":
    """transformers.pipeline("question-answering", model=..., ...): model=
    is a folder save_pretrained wrote (config.json, model.safetensors or
    pytorch_model.bin, the tokenizer's files), a Hugging Face Hub id
    (org/name, from the Hugging Face cache or downloaded into it), or an
    ONNX export; qa-shard builds the graph of a checkpoint itself. device= takes transformers' values (-1 or "cpu",
    N or "cuda:N"); devices= is qa-shard's --devices ("cpu:2", "0,1",
    "all"); neither: qa-shard's default (every GPU, else the CPU).
    Answer settings given here (top_k=3...) are every call's defaults.
    binary= names the qa-shard to run (else $QA_SHARD_BIN, qa-shard on
    PATH, the source checkout's build/bin/qa-shard); args= adds qa-shard
    flags (--threads 4...); env= adds environment variables."""
    if task is not None and task != "question-answering":
        raise ValueError('qa_shard.pipeline answers the task "question-answering" only (got %r)' % (task,))
    if model is None:
        raise ValueError("model= must name the model: a folder save_pretrained wrote, "
                         "a Hugging Face Hub id such as deepset/roberta-base-squad2, or an ONNX export")
    model = model_spec(model, "model")
    if tokenizer is not None:
        tokenizer = model_spec(tokenizer, "tokenizer")
    if tokenizer is not None and tokenizer != model and os.path.realpath(tokenizer) != os.path.realpath(model):
        raise ValueError("tokenizer=%r: qa-shard reads the tokenizer from the model folder %r; "
                         "leave tokenizer= out or give the same folder" % (tokenizer, model))
    for name in LOADING_OPTIONS + IGNORED_CALL_OPTIONS:
        kwargs.pop(name, None)
    defaults = {k: kwargs.pop(k) for k in NAMES if k in kwargs}
    if kwargs:
        raise TypeError("pipeline() got unexpected keyword arguments: %s" % ", ".join(sorted(kwargs)))
    return QuestionAnsweringPipeline(model, devices=devices_flag(devices, device), binary=binary, args=args,
                                     env=env, max_processes=max_processes, **defaults)


def model_spec(model: Any, what: str) -> str:
    """What --model takes for model= (or tokenizer=): a folder or Hub id as
    given; a path to an export's model.onnx, its folder; a transformers
    model or tokenizer object, its name_or_path (the folder or Hub id it
    was loaded from)."""
    if isinstance(model, (str, os.PathLike)):
        spec = os.fspath(model)
        if os.path.basename(spec) == "model.onnx" and os.path.isfile(spec):
            return os.path.dirname(os.path.abspath(spec))
        return spec
    name = getattr(model, "name_or_path", None)
    if not name:
        name = getattr(getattr(model, "config", None), "_name_or_path", None)
    if isinstance(name, (str, os.PathLike)) and os.fspath(name):
        return os.fspath(name)
    raise TypeError("%s= is a %s object that names no folder or Hub id (its name_or_path is empty: made in memory, not "
                    "loaded): save it with save_pretrained(DIR) and give %s=DIR, or give the Hub id it came from"
                    % (what, type(model).__name__, what))


def devices_flag(devices: Any, device: Any) -> Optional[str]:
    """qa-shard's --devices for devices= (its own grammar) or device=
    (transformers': -1 or "cpu", N, "cuda" or "cuda:N", a torch.device)."""
    if devices is not None and device is not None:
        raise ValueError("give devices= (qa-shard's --devices) or device= (transformers'), not both")
    if devices is not None:
        if isinstance(devices, (list, tuple)):
            return ",".join(str(d) for d in devices)
        return str(devices)
    if device is None:
        return None
    d = str(device)
    if d in ("-1", "cpu"):
        return "cpu"
    if d == "cuda":
        return "0"
    if d.startswith("cuda:") and d[5:].isdigit():
        return d[5:]
    if d.isdigit():
        return d
    raise ValueError("device=%r: qa-shard runs on the CPU or NVIDIA GPUs: device=-1 or \"cpu\", N or \"cuda:N\" "
                     "(or devices= in qa-shard's grammar: \"cpu:2\", \"0,1\")" % (device,))


class QuestionAnsweringPipeline:
    """Answers questions with qa-shard; made by qa_shard.pipeline()."""

    def __init__(self, model: str, *, devices: Optional[str] = None, binary: Optional[str] = None,
                 args: Sequence[str] = (), env: Optional[Dict[str, str]] = None, max_processes: int = 2,
                 lazy: bool = False, **defaults: Any):
        if max_processes < 1:
            raise ValueError("max_processes must be at least 1")
        self.model = os.fspath(model)
        self.binary = checked_binary(binary)
        self.devices = devices
        self.max_processes = max_processes
        self._args = list(args)
        self._env_extra = dict(env or {})
        self._env = environ(env)
        self._defaults = sanitize(defaults)
        self._model_max_length = model_max_length(self.model)
        # The pipeline's own settings: its processes' flags (checked when
        # the first starts) and their window length unless a call asks
        # for longer.
        self._base = resolve(self._defaults, self._model_max_length)
        self._closed = False
        self._own()
        if not lazy:
            self._process(self._base.max_seq_len)

    def _own(self) -> None:
        """Starts this process's own state: no qa-shard yet, a lock, the
        finalizer that closes them when the pipeline is collected or at the
        interpreter's exit (it holds the dict, not the pipeline)."""
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._processes: "collections.OrderedDict[int, Process]" = collections.OrderedDict()  # by --max-seq-len
        self._finalizer = weakref.finalize(self, _close_all, self._processes)

    def _forked(self) -> None:
        """In a child forked after the pipeline was made: the qa-shard
        processes are the parent's (their pipes shared with it), so the
        child forgets them and starts its own at its first call."""
        if self._pid != os.getpid():
            self._finalizer.detach()
            self._own()

    def __reduce__(self):
        # Pickled (spawn and forkserver pools, Pool.map(qa, ...)): rebuilt
        # from the model and settings; its process starts at the first call.
        return (_rebuild, (self.model, self.devices, self.binary, tuple(self._args), tuple(sorted(self._env_extra.items())),
                           self.max_processes, tuple(sorted(self._defaults.items()))))

    def __call__(self, *args: Any, **kwargs: Any) -> Union[Result, List[Result], Iterator[Result]]:
        self._forked()
        given = dict(self._defaults)
        given.update(sanitize({k: kwargs.pop(k) for k in NAMES if k in kwargs}))
        for name in IGNORED_CALL_OPTIONS:
            kwargs.pop(name, None)
        unknown = sorted(set(kwargs) - {"question", "context", "X", "data"})
        if unknown:
            warnings.warn("qa_shard pipeline: ignored keyword arguments %s" % ", ".join(unknown), UserWarning, stacklevel=2)
        settings = resolve(given, self._model_max_length)
        pairs = examples(args, kwargs)
        if not isinstance(pairs, list):
            return self._lazy(pairs, settings)
        results = self._answer(pairs, settings)
        return results[0] if len(results) == 1 else results

    def _lazy(self, pairs: Iterator[Pair], settings: Settings) -> Iterator[Result]:
        while True:
            chunk = list(itertools.islice(pairs, GENERATOR_CHUNK))
            if not chunk:
                return
            yield from self._answer(chunk, settings)

    def _answer(self, pairs: List[Pair], settings: Settings) -> List[Result]:
        if not pairs:
            return []
        while True:
            ceiling, proc = self._process(settings.max_seq_len)
            try:
                records = proc.ask(pairs, settings.record())
                break
            except Retired:
                continue  # another thread's call closed it to make room: ask the one kept now
            finally:
                if proc.broken is not None:
                    self._drop(ceiling, proc)
        results = []
        for i, rec in enumerate(records):
            if "error" in rec:
                where = "input %d: " % i if len(records) > 1 else ""
                raise RecordError(where + str(rec["error"]), i)
            results.append(result(rec, settings.top_k))
        return results

    def _process(self, max_seq_len: int) -> Tuple[int, Process]:
        """A process whose windows can be max_seq_len tokens long (the
        shortest such kept), started if there is none, and its
        --max-seq-len."""
        self._forked()
        with self._lock:
            if self._closed:
                raise QAShardError("this pipeline is closed", None, "user")
            fits = [c for c, p in self._processes.items() if c >= max_seq_len and p.broken is None]
            if fits:
                # Even if it ended: ask() then says how, once.
                ceiling = min(fits)
                self._processes.move_to_end(ceiling)
                return ceiling, self._processes[ceiling]
            ceiling = max(max_seq_len, self._base.max_seq_len)
            p = self._processes.pop(ceiling, None)
            if p is not None:
                p.retire()
            while len(self._processes) >= self.max_processes:
                _, old = self._processes.popitem(last=False)
                old.retire()
            p = Process(self.argv(ceiling), self._env)
            self._processes[ceiling] = p
            return ceiling, p

    def _drop(self, ceiling: int, proc: Process) -> None:
        with self._lock:
            if self._processes.get(ceiling) is proc:
                del self._processes[ceiling]

    def argv(self, max_seq_len: int) -> List[str]:
        """The qa-shard command that answers calls whose windows are at
        most max_seq_len tokens: the pipeline's settings as the run's
        flags (so qa-shard refuses bad ones when the pipeline is made),
        and every record's own in its settings field."""
        argv = [self.binary, "--model", self.model, "--input", "-", "--output", "-", "--id-type", "string",
                "--log-format", "json", "--max-errors", "100%", "--settings-field", "settings"]
        if self.devices is not None:
            argv += ["--devices", self.devices]
        return argv + self._base._replace(max_seq_len=max_seq_len).flags() + self._args

    @property
    def pids(self) -> List[int]:
        """The process ids of the qa-shard processes kept."""
        with self._lock:
            return [p.pid for p in self._processes.values()]

    def close(self) -> None:
        """Ends the qa-shard processes and waits for them."""
        with self._lock:
            self._closed = True
        self._finalizer()

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> "QuestionAnsweringPipeline":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        return "<qa_shard.QuestionAnsweringPipeline model=%r devices=%r binary=%r>" % (self.model, self.devices, self.binary)


#: Pipelines rebuilt from a pickle in this process, by what they were
#: pickled from: a pool's worker that receives the pipeline with every
#: task keeps one qa-shard for all of them.
_REBUILT: Dict[Any, "QuestionAnsweringPipeline"] = {}
_REBUILT_LOCK = threading.Lock()


def _rebuild(model: str, devices: Optional[str], binary: str, args: tuple, env: tuple, max_processes: int,
             defaults: tuple) -> "QuestionAnsweringPipeline":
    key = (os.getpid(), model, devices, binary, args, env, max_processes, defaults)
    with _REBUILT_LOCK:
        p = _REBUILT.get(key)
        if p is None or p.closed:
            p = QuestionAnsweringPipeline(model, devices=devices, binary=binary, args=list(args), env=dict(env),
                                          max_processes=max_processes, lazy=True, **dict(defaults))
            _REBUILT[key] = p
        return p


def _close_all(processes: "collections.OrderedDict[int, Process]") -> None:
    while processes:
        _, p = processes.popitem(last=False)
        p.retire()


def result(rec: Dict[str, Any], top_k: int) -> Result:
    """transformers' result for one answer record: the answer as a dict
    (its keys in the pipeline's order) for top_k 1; for more, the list of
    answers, or the one answer itself when only one was found."""
    if top_k == 1:
        return _answer(rec)
    answers = [_answer(a) for a in rec.get("answers", [])]
    return answers[0] if len(answers) == 1 else answers


def _answer(a: Dict[str, Any]) -> Dict[str, Any]:
    return {"score": a["score"], "start": a["start"], "end": a["end"], "answer": a["answer"]}
