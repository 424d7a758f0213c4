"""The package installs with pip offline, into a fresh virtual environment,
from the folder (pip's isolated build, no index) and as an editable
install, and finds the binary by the documented rules."""

import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import zipfile
from unittest import mock

import qa_shard
from qa_shard import binary

from . import support

PACKAGE = os.path.join(support.ROOT, "python")


def run(*argv, **kwargs):
    return subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)


class TestInstall(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.tmp = d.name

    def venv(self, name):
        path = os.path.join(self.tmp, name)
        out = run(sys.executable, "-m", "venv", path)
        if out.returncode != 0:
            self.fail("python -m venv failed (Debian: apt-get install python3-venv): " + out.stdout)
        return os.path.join(path, "bin", "python")

    def offline_env(self):
        # No index at all: an install that needed to fetch anything fails.
        return dict(os.environ, PIP_NO_INDEX="1", PIP_INDEX_URL="http://127.0.0.1:9/", PIP_DISABLE_PIP_VERSION_CHECK="1",
                    PYTHONPATH="")

    def check_import(self, python, where):
        env = dict(self.offline_env(), QA_SHARD_BIN=support.binary())
        out = run(python, "-c", "import qa_shard; print(qa_shard.__version__); print(qa_shard.__file__); "
                  "print(qa_shard.find_binary())", env=env, cwd=self.tmp)
        self.assertEqual(out.returncode, 0, out.stdout)
        version, path, found = out.stdout.split("\n")[:3]
        self.assertEqual(version, qa_shard.__version__)
        self.assertTrue(path.startswith(where), path)
        self.assertEqual(found, support.binary())

    def test_pip_install(self):
        python = self.venv("env")
        out = run(python, "-m", "pip", "install", PACKAGE, env=self.offline_env())
        self.assertEqual(out.returncode, 0, out.stdout)
        self.check_import(python, os.path.join(self.tmp, "env"))

    def test_pip_install_editable(self):
        python = self.venv("dev")
        out = run(python, "-m", "pip", "install", "-e", PACKAGE, env=self.offline_env())
        self.assertEqual(out.returncode, 0, out.stdout)
        self.check_import(python, PACKAGE)

    def test_wheel(self):
        sys.path.insert(0, os.path.join(PACKAGE, "build_backend"))
        self.addCleanup(sys.path.remove, os.path.join(PACKAGE, "build_backend"))
        import qa_shard_backend

        name = qa_shard_backend.build_wheel(self.tmp)
        self.assertEqual(name, "qa_shard-%s-py3-none-any.whl" % qa_shard.__version__)
        with zipfile.ZipFile(os.path.join(self.tmp, name)) as z:
            names = z.namelist()
            record = z.read("qa_shard-%s.dist-info/RECORD" % qa_shard.__version__).decode()
        modules = sorted(n for n in os.listdir(os.path.join(PACKAGE, "qa_shard")) if n.endswith(".py"))
        self.assertEqual(sorted(n.split("/")[1] for n in names if n.startswith("qa_shard/")), modules)
        self.assertEqual(len(record.strip().split("\n")), len(names), "RECORD lists every file")
        sdist = qa_shard_backend.build_sdist(self.tmp)
        self.assertTrue(os.path.exists(os.path.join(self.tmp, sdist)))


class TestFindBinary(unittest.TestCase):
    def test_order(self):
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "qa-shard")
            shutil.copy(sys.executable, exe)  # any executable file
            other = os.path.join(d, "other")
            shutil.copy(sys.executable, other)
            with mock.patch.dict(os.environ, {"QA_SHARD_BIN": other, "PATH": d}):
                self.assertEqual(binary.find_binary(exe), exe)
                self.assertEqual(binary.find_binary(), other)
            with mock.patch.dict(os.environ, {"PATH": d}):
                os.environ.pop("QA_SHARD_BIN", None)
                self.assertEqual(binary.find_binary(), exe)

    def test_none_found(self):
        with mock.patch.dict(os.environ, {"PATH": ""}), \
                mock.patch.object(binary, "checkout_binary", return_value="/nonexistent/build/bin/qa-shard"):
            os.environ.pop("QA_SHARD_BIN", None)
            with self.assertRaises(qa_shard.BinaryNotFound) as cm:
                binary.find_binary()
            msg = cm.exception.message
            for tried in ("binary=", "$QA_SHARD_BIN", "PATH", "/nonexistent/build/bin/qa-shard", "make build"):
                self.assertIn(tried, msg)
            with mock.patch.dict(os.environ, {"QA_SHARD_BIN": "/nonexistent/qa-shard"}):
                with self.assertRaisesRegex(qa_shard.BinaryNotFound, r"\$QA_SHARD_BIN"):
                    binary.find_binary()
            with self.assertRaisesRegex(qa_shard.BinaryNotFound, "binary="):
                binary.find_binary("/nonexistent/qa-shard")

    def test_checkout(self):
        self.assertEqual(binary.checkout_binary(), os.path.join(support.ROOT, "build", "bin", "qa-shard"))


if __name__ == "__main__":
    unittest.main()
