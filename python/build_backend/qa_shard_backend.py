"""The PEP 517 build backend of qa-shard's Python package, in the tree.

pip builds a package in an isolated environment into which it installs the
backend's requirements from an index; where no index is reachable, a
backend such as setuptools cannot be installed there and
`pip install ./python` fails. This backend needs only the standard
library, so pyproject.toml requires nothing and the install works offline.
The package is pure Python, so a wheel is a zip of its modules and a
dist-info folder (PEP 427, PEP 376, core metadata 2.1); PEP 660's editable
install (`pip install -e ./python`) is a wheel holding a .pth file that
puts this folder on sys.path.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

NAME = "qa-shard"
DIST = "qa_shard"  # the distribution name as file names spell it
PACKAGE = "qa_shard"
SUMMARY = "Hugging Face's question-answering pipeline, answered by the qa-shard binary"
REQUIRES_PYTHON = ">=3.8"
TAG = "py3-none-any"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
EPOCH = (1980, 1, 1, 0, 0, 0)  # fixed times: the same sources give the same wheel


def version():
    """The package's __version__, read without importing it."""
    with open(os.path.join(HERE, PACKAGE, "__init__.py"), encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"$', f.read(), re.M)
    if not m:
        raise RuntimeError(PACKAGE + "/__init__.py has no __version__ line")
    return m.group(1)


def _dist_info():
    return "%s-%s.dist-info" % (DIST, version())


def _metadata():
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        readme = f.read()
    return (
        "Metadata-Version: 2.1\n"
        "Name: %s\nVersion: %s\nSummary: %s\nRequires-Python: %s\n"
        "Description-Content-Type: text/markdown\n\n%s"
    ) % (NAME, version(), SUMMARY, REQUIRES_PYTHON, readme)


def _wheel_meta():
    return "Wheel-Version: 1.0\nGenerator: qa_shard_backend\nRoot-Is-Purelib: true\nTag: %s\n" % TAG


def _modules():
    """The package's files, as (path in the wheel, bytes)."""
    out = []
    root = os.path.join(HERE, PACKAGE)
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
        for name in sorted(filenames):
            if name.endswith(".py") or name == "py.typed":
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    out.append((os.path.relpath(path, HERE).replace(os.sep, "/"), f.read()))
    return out


def _write_wheel(wheel_directory, files):
    """Writes files (path, bytes) and the dist-info as a wheel; returns its name."""
    info = _dist_info()
    files = list(files) + [
        (info + "/METADATA", _metadata().encode("utf-8")),
        (info + "/WHEEL", _wheel_meta().encode("utf-8")),
        (info + "/top_level.txt", (PACKAGE + "\n").encode("utf-8")),
    ]
    record = io.StringIO()
    for path, data in files:
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
        record.write("%s,sha256=%s,%d\n" % (path, digest, len(data)))
    record.write(info + "/RECORD,,\n")
    files.append((info + "/RECORD", record.getvalue().encode("utf-8")))
    name = "%s-%s-%s.whl" % (DIST, version(), TAG)
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w", zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            zi = zipfile.ZipInfo(path, EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return name


def _write_metadata(metadata_directory):
    info = _dist_info()
    os.makedirs(os.path.join(metadata_directory, info), exist_ok=True)
    for name, text in (("METADATA", _metadata()), ("WHEEL", _wheel_meta())):
        with open(os.path.join(metadata_directory, info, name), "w", encoding="utf-8") as f:
            f.write(text)
    return info


# PEP 517 hooks.


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, _modules())


def build_sdist(sdist_directory, config_settings=None):
    top = "%s-%s" % (DIST, version())
    name = top + ".tar.gz"
    members = [("PKG-INFO", _metadata().encode("utf-8"))]
    for rel in ("pyproject.toml", "README.md", "build_backend/qa_shard_backend.py"):
        with open(os.path.join(HERE, rel), "rb") as f:
            members.append((rel, f.read()))
    members += _modules()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for rel, data in members:
            ti = tarfile.TarInfo(top + "/" + rel)
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 315532800
            t.addfile(ti, io.BytesIO(data))
    return name


# PEP 660 hooks: an editable install puts this folder on sys.path.


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    return _write_metadata(metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, [(DIST + ".pth", (HERE + "\n").encode("utf-8"))])
