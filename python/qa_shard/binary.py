"""Where the qa-shard binary is."""

from __future__ import annotations

import os
import shutil
from typing import Optional

from .errors import BinaryNotFound

ENV = "QA_SHARD_BIN"


def checkout_binary() -> str:
    """build/bin/qa-shard of the repository this package sits in (a source
    checkout: python/qa_shard/ beside build/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(here)), "build", "bin", "qa-shard")


def find_binary(binary: Optional[str] = None) -> str:
    """The qa-shard to run: `binary` if given, else $QA_SHARD_BIN, else
    qa-shard on PATH, else the source checkout's build/bin/qa-shard.
    Raises BinaryNotFound saying what was tried."""
    if binary is not None:
        path = os.fspath(binary)
        if not _runnable(path):
            raise BinaryNotFound("qa-shard binary %r (binary=) is not an executable file" % path)
        return path
    env = os.environ.get(ENV)
    if env:
        if not _runnable(env):
            raise BinaryNotFound("qa-shard binary %r ($%s) is not an executable file" % (env, ENV))
        return env
    found = shutil.which("qa-shard")
    if found:
        return found
    local = checkout_binary()
    if _runnable(local):
        return local
    raise BinaryNotFound(
        "no qa-shard binary found: tried binary= (not given), $%s (not set), qa-shard on PATH (none) and "
        "the source checkout's %s (missing: `make build` there builds it)" % (ENV, local))


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
