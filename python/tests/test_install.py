"""The wheel installs into a fresh virtual environment, offline, and
answers there with nothing of the checkout (no QA_SHARD_BIN, no qa-shard
on PATH, another working directory); the sdist carries the Go sources and
builds a wheel where Go is, and says what is missing where it is not; the
binary and the package refuse each other's other releases; the binary is
found by the documented rules."""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile
from unittest import mock

import qa_shard
from qa_shard import binary

from . import support

PACKAGE = os.path.join(support.ROOT, "python")
QUESTION = "Who founded the company?"
CONTEXT = "Lovelace GmbH was founded in 1843 by Ada Lovelace. Its headquarters moved to Zurich in 1965."


def run(*argv, **kwargs):
    return subprocess.run(list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kwargs)


def built(env_name, what):
    """The file make python-test names in env_name; skipped (failed under
    CI=true) without it."""
    path = os.environ.get(env_name, "")
    if not path or not os.path.exists(path):
        msg = "%s is not built: `make python-test` builds it (%s)" % (what, env_name)
        if os.environ.get("CI") == "true":
            raise AssertionError(msg)
        raise unittest.SkipTest(msg)
    return path


class Case(unittest.TestCase):
    def setUp(self):
        d = tempfile.TemporaryDirectory()
        self.addCleanup(d.cleanup)
        self.tmp = d.name

    def venv(self, name):
        path = os.path.join(self.tmp, name)
        out = run(sys.executable, "-m", "venv", path)
        if out.returncode != 0:
            self.fail("python -m venv failed (Debian: apt-get install python3-venv): " + out.stdout)
        return path

    def bare_env(self, **extra):
        """No checkout anywhere: system PATH only, a home of its own, no
        index for pip."""
        env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": os.path.join(self.tmp, "home"), "LANG": "C.UTF-8",
               "PIP_NO_INDEX": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        env.update(extra)
        return env


class TestWheel(Case):
    def test_contents(self):
        wheel = built("QA_SHARD_WHEEL", "the wheel")
        name = os.path.basename(wheel)
        self.assertRegex(name, r"^qa_shard-%s-py3-none-manylinux_2_(\d+)_x86_64\.whl$" % re.escape(qa_shard.__version__))
        with zipfile.ZipFile(wheel) as z:
            names = set(z.namelist())
            wheel_meta = z.read("qa_shard-%s.dist-info/WHEEL" % qa_shard.__version__).decode()
        data = "qa_shard-%s.data/" % qa_shard.__version__
        for want in ("scripts/qa-shard", "data/lib/qa-shard/libonnxruntime.so.1", "data/lib/qa-shard/ONNXRUNTIME.txt"):
            self.assertIn(data + want, names)
        modules = sorted(n for n in os.listdir(os.path.join(PACKAGE, "qa_shard")) if n.endswith(".py"))
        self.assertEqual(sorted(n.split("/")[1] for n in names if n.startswith("qa_shard/")), modules)
        self.assertIn("Root-Is-Purelib: false", wheel_meta)

    def test_binary_runs_where_onnx_runtime_does(self):
        """The wheel's binary needs no glibc newer than 2.28 (ONNX
        Runtime's own wheels' floor) and no NVIDIA library to start; the
        NVML functions it calls are found in the libnvidia-ml.so.1 it
        opens when it runs (a stand-in library here, built with the C
        compiler)."""
        wheel = built("QA_SHARD_WHEEL", "the wheel")
        self.assertIn("-manylinux_2_28_x86_64.whl", os.path.basename(wheel), "make wheel tags the wheel for glibc 2.28")
        with zipfile.ZipFile(wheel) as z:
            data = z.read("qa_shard-%s.data/scripts/qa-shard" % qa_shard.__version__)
        versions = {tuple(int(x) for x in m) for m in re.findall(rb"GLIBC_(\d+)\.(\d+)", data)}
        self.assertTrue(versions, "the binary names the glibc versions it needs")
        self.assertLessEqual(max(versions), (2, 28), "the binary needs glibc %d.%d" % max(versions))
        exe = os.path.join(self.tmp, "qa-shard")
        with open(exe, "wb") as f:
            f.write(data)
        os.chmod(exe, 0o755)
        cc = shutil.which(os.environ.get("CC", "cc"))
        if cc is None:
            msg = "no C compiler to build a stand-in NVML library with (Debian: apt-get install gcc)"
            if os.environ.get("CI") == "true":
                self.fail(msg)
            self.skipTest(msg)
        src = os.path.join(self.tmp, "nvml.c")
        with open(src, "w") as f:
            f.write('#include <string.h>\n'
                    'int nvmlInit_v2(void) { return 0; }\n'
                    'int nvmlShutdown(void) { return 0; }\n'
                    'int nvmlDeviceGetCount_v2(unsigned *n) { *n = 0; return 0; }\n'
                    'int nvmlSystemGetDriverVersion(char *v, unsigned n) { strncpy(v, "999.99-stand-in", n); return 0; }\n'
                    'int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 13000; return 0; }\n'
                    'const char *nvmlErrorString(int r) { return "stand-in"; }\n')
        lib = os.path.join(self.tmp, "nvml")
        os.makedirs(lib)
        out = run(cc, "-shared", "-fPIC", "-o", os.path.join(lib, "libnvidia-ml.so.1"), src)
        self.assertEqual(out.returncode, 0, out.stdout)
        without = run(exe, "devices", env=self.bare_env())
        self.assertIn("no NVIDIA driver found", without.stdout, "it starts without a driver")
        stand_in = run(exe, "devices", env=self.bare_env(LD_LIBRARY_PATH=lib))
        self.assertEqual(stand_in.returncode, 0, stand_in.stdout)
        self.assertIn("NVIDIA driver 999.99-stand-in, 0 GPU(s)", stand_in.stdout,
                      "NVML's functions were found in the library opened at run time")

    def test_fresh_venv_answers(self):
        """pip install of the wheel alone, offline; then pipeline() answers
        from another folder with no trace of the checkout, as the checkout's
        binary answers; qa-shard is on the venv's PATH with its library."""
        support.require(self)
        wheel = built("QA_SHARD_WHEEL", "the wheel")
        venv = self.venv("env")
        python = os.path.join(venv, "bin", "python")
        out = run(python, "-m", "pip", "install", wheel, env=self.bare_env())
        self.assertEqual(out.returncode, 0, out.stdout)
        model = os.path.join(self.tmp, "model")
        shutil.copytree(support.model(), model)
        script = ("import json, qa_shard\n"
                  "qa = qa_shard.pipeline('question-answering', model=%r, devices='cpu', args=['--tune-cache', 'none'])\n"
                  "print(json.dumps({'answer': qa(question=%r, context=%r), 'binary': qa.binary}))\n"
                  "qa.close()\n" % (model, QUESTION, CONTEXT))
        work = os.path.join(self.tmp, "elsewhere")
        os.makedirs(work)
        out = run(python, "-c", script, env=self.bare_env(), cwd=work)
        self.assertEqual(out.returncode, 0, out.stdout)
        got = json.loads(out.stdout.strip().splitlines()[-1])
        self.assertEqual(got["binary"], os.path.join(venv, "bin", "qa-shard"))
        with qa_shard.pipeline("question-answering", model=support.model(), devices="cpu", args=["--tune-cache", "none"]) as qa:
            want = qa(question=QUESTION, context=CONTEXT)
        self.assertEqual(got["answer"]["answer"], want["answer"])
        self.assertEqual((got["answer"]["start"], got["answer"]["end"]), (want["start"], want["end"]))
        self.assertAlmostEqual(got["answer"]["score"], want["score"], places=6)
        out = run("qa-shard", "version", env=self.bare_env(PATH=os.path.join(venv, "bin") + ":/usr/bin:/bin"), cwd=work)
        self.assertEqual(out.returncode, 0, out.stdout)
        self.assertTrue(out.stdout.startswith("qa-shard %s+" % qa_shard.__version__), out.stdout)
        self.assertIn(os.path.join(venv, "lib", "qa-shard", "libonnxruntime.so.1"), out.stdout)


class TestSdist(Case):
    def test_builds_with_go_and_says_what_is_missing(self):
        hatch = built("QA_SHARD_HATCH_PYTHON", "hatchling's environment")
        ort = built("QA_SHARD_ORT_LIB_FOR_WHEEL", "ONNX Runtime's library")
        out = run(hatch, "-m", "hatchling", "build", "-t", "sdist", "-d", self.tmp, cwd=PACKAGE)
        self.assertEqual(out.returncode, 0, out.stdout)
        sdist = glob.glob(os.path.join(self.tmp, "*.tar.gz"))[0]
        with tarfile.open(sdist) as t:
            t.extractall(self.tmp, filter="data") if hasattr(tarfile, "data_filter") else t.extractall(self.tmp)
        top = os.path.join(self.tmp, "qa_shard-%s" % qa_shard.__version__)
        for f in ("go/go.mod", "go/go.sum", "go/cmd/qa-shard/main.go", "hatch_build.py", "qa_shard/pipeline.py"):
            self.assertTrue(os.path.exists(os.path.join(top, f)), f)
        out = run(hatch, "-m", "hatchling", "build", "-t", "wheel", "-d", os.path.join(self.tmp, "nogo"), cwd=top,
                  env=self.bare_env(PATH="/nonexistent"))
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("needs Go", out.stdout)
        env = dict(os.environ, QA_SHARD_ORT_LIB=ort)
        env.pop("QA_SHARD_WHEEL_BIN", None)
        out = run(hatch, "-m", "hatchling", "build", "-t", "wheel", "-d", os.path.join(self.tmp, "wheel"), cwd=top, env=env)
        self.assertEqual(out.returncode, 0, out.stdout)
        wheel = glob.glob(os.path.join(self.tmp, "wheel", "*.whl"))[0]
        self.assertRegex(os.path.basename(wheel), r"manylinux_2_\d+_x86_64\.whl$")
        with zipfile.ZipFile(wheel) as z:
            z.extract("qa_shard-%s.data/scripts/qa-shard" % qa_shard.__version__, self.tmp)
        exe = os.path.join(self.tmp, "qa_shard-%s.data" % qa_shard.__version__, "scripts", "qa-shard")
        os.chmod(exe, 0o755)
        out = run(exe, "version")
        self.assertTrue(out.stdout.startswith("qa-shard %s+source" % qa_shard.__version__), out.stdout)


class TestVersions(Case):
    def test_package_refuses_another_binary(self):
        fake = os.path.join(self.tmp, "qa-shard")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'qa-shard 9.9.9+abc'\n")
        os.chmod(fake, 0o755)
        with self.assertRaises(qa_shard.BinaryMismatch) as cm:
            binary.checked_binary(fake)
        self.assertIn("9.9.9", str(cm.exception))
        self.assertIn(qa_shard.__version__, str(cm.exception))

    def test_binary_refuses_another_package(self):
        support.require(self)
        self.assertEqual(binary.checked_binary(support.binary()), support.binary())
        out = run(support.binary(), "version", env=dict(os.environ, QA_SHARD_PACKAGE_VERSION="9.9.9"))
        self.assertEqual(out.returncode, 2, out.stdout)
        self.assertIn("9.9.9", out.stdout)


class TestPythonVersion(unittest.TestCase):
    def test_one_version(self):
        """The oldest Python the package supports is said once in its
        metadata, and the README and migration.md say the same."""
        with open(os.path.join(PACKAGE, "pyproject.toml"), encoding="utf-8") as f:
            least = re.search(r'^requires-python = ">=(3\.\d+)"$', f.read(), re.M)
        self.assertIsNotNone(least, "pyproject.toml states requires-python as >=3.N")
        least = least.group(1)
        for doc, said in (("README.md", r"\b(3\.\d+)\+ environment"), ("docs/migration.md", r"Python (3\.\d+) or newer"),
                          ("docs/migration.md", r"\(Python (3\.\d+)\+")):
            with open(os.path.join(support.ROOT, doc), encoding="utf-8") as f:
                found = re.findall(said, f.read())
            self.assertTrue(found, "%s says which Python (%s)" % (doc, said))
            self.assertEqual(set(found), {least}, "%s says Python %s; the metadata %s" % (doc, found, least))


class TestFindBinary(unittest.TestCase):
    def test_order(self):
        with tempfile.TemporaryDirectory() as d:
            exe = os.path.join(d, "qa-shard")
            shutil.copy(sys.executable, exe)  # any executable file
            other = os.path.join(d, "other")
            shutil.copy(sys.executable, other)
            installed = os.path.join(d, "installed")
            shutil.copy(sys.executable, installed)
            with mock.patch.dict(os.environ, {"QA_SHARD_BIN": other, "PATH": d}), \
                    mock.patch.object(binary, "installed_binary", return_value=installed):
                self.assertEqual(binary.find_binary(exe), exe)
                self.assertEqual(binary.find_binary(), other)
                os.environ.pop("QA_SHARD_BIN")
                self.assertEqual(binary.find_binary(), installed)
            with mock.patch.dict(os.environ, {"PATH": d}), mock.patch.object(binary, "installed_binary", return_value=None):
                os.environ.pop("QA_SHARD_BIN", None)
                self.assertEqual(binary.find_binary(), exe)

    def test_none_found(self):
        with mock.patch.dict(os.environ, {"PATH": ""}), \
                mock.patch.object(binary, "installed_binary", return_value=None), \
                mock.patch.object(binary, "checkout_binary", return_value="/nonexistent/build/bin/qa-shard"):
            os.environ.pop("QA_SHARD_BIN", None)
            with self.assertRaises(qa_shard.BinaryNotFound) as cm:
                binary.find_binary()
            msg = cm.exception.message
            for tried in ("binary=", "$QA_SHARD_BIN", "wheel", "PATH", "/nonexistent/build/bin/qa-shard", "make build"):
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
