"""Where the qa-shard binary is, and whether it is this package's."""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, Optional, Tuple

from .errors import BinaryNotFound, BinaryMismatch

ENV = "QA_SHARD_BIN"
#: What the package sets to its release when it starts qa-shard: a binary
#: of another release refuses to run (and says so).
PACKAGE_ENV = "QA_SHARD_PACKAGE_VERSION"
DISTRIBUTION = "qa-shard"


def checkout_binary() -> str:
    """build/bin/qa-shard of the repository this package sits in (a source
    checkout: python/qa_shard/ beside build/)."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.join(os.path.dirname(os.path.dirname(here)), "build", "bin", "qa-shard")


def installed_binary() -> Optional[str]:
    """The qa-shard the wheel installed with this package (its RECORD lists
    it among the scripts: the environment's bin/), or None."""
    try:
        from importlib import metadata
    except ImportError:  # Python < 3.8
        return None
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None
    for f in dist.files or ():
        if f.name == "qa-shard" and f.parent.name == "bin":
            path = os.path.normpath(str(dist.locate_file(f)))
            if _runnable(path):
                return path
    return None


def find_binary(binary: Optional[str] = None) -> str:
    """The qa-shard to run: `binary` if given, else $QA_SHARD_BIN, else the
    one installed with this package (the wheel's), else qa-shard on PATH,
    else the source checkout's build/bin/qa-shard. Raises BinaryNotFound
    saying what was tried."""
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
    installed = installed_binary()
    if installed:
        return installed
    found = shutil.which("qa-shard")
    if found:
        return found
    local = checkout_binary()
    if _runnable(local):
        return local
    raise BinaryNotFound(
        "no qa-shard binary found: tried binary= (not given), $%s (not set), the one a qa-shard wheel installs "
        "beside this package (none: this package was not installed from the wheel), qa-shard on PATH (none) and "
        "the source checkout's %s (missing: `make build` there builds it). `pip install` of the qa-shard wheel "
        "brings the binary" % (ENV, local))


_releases: Dict[Tuple[str, float], str] = {}


def binary_release(path: str) -> str:
    """The release of the qa-shard at path (its `qa-shard version` first
    line, RELEASE+BUILD), remembered by path and modification time."""
    key = (path, os.path.getmtime(path))
    if key not in _releases:
        env = dict(os.environ)
        env.pop(PACKAGE_ENV, None)
        try:
            out = subprocess.run([path, "version"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                                 timeout=60, check=False).stdout.decode("utf-8", "replace")
        except (OSError, subprocess.TimeoutExpired) as e:
            raise BinaryNotFound("qa-shard binary %r cannot be run: %s" % (path, e)) from e
        first = out.split("\n", 1)[0].split()
        if len(first) < 2 or first[0] != "qa-shard":
            raise BinaryNotFound("%r does not say it is qa-shard (`version` printed %r)" % (path, out[:80]))
        _releases[key] = first[1].split("+", 1)[0]
    return _releases[key]


def checked_binary(binary: Optional[str] = None) -> str:
    """find_binary's qa-shard, refused (BinaryMismatch) when it is of
    another release than this package (a build without a release, "dev":
    `go build` without make, is taken as it is)."""
    from . import __version__

    path = find_binary(binary)
    release = binary_release(path)
    if release not in (__version__, "dev"):
        raise BinaryMismatch("qa-shard at %s is release %s, and this package qa_shard is %s: install the two from "
                             "one release (pip install --force-reinstall of the qa-shard wheel), or give binary= or "
                             "$%s a qa-shard %s" % (path, release, __version__, ENV, __version__))
    return path


def _runnable(path: str) -> bool:
    return os.path.isfile(path) and os.access(path, os.X_OK)
