"""hatchling's build hook for qa-shard's wheel and sdist.

A wheel holds, beside the package, the qa-shard binary as a script (pip
installs it into the environment's bin/, so `qa-shard` is on the venv's
PATH) and ONNX Runtime's library as data under lib/qa-shard/ (the binary
finds it at ../lib/qa-shard/ beside itself, as after `make install`). Its
tag is the platform's: manylinux_X_Y_x86_64, X.Y the newest glibc symbol
version the binary or the library needs, read from their files, so the
tag claims no older glibc than they run on.

Where the two come from:
- QA_SHARD_WHEEL_BIN and QA_SHARD_WHEEL_LIBS (the library files, joined
  with ":"): what `make wheel` and `make wheel-gpu` pass;
- otherwise the binary is built here with Go from the Go module (the
  checkout around this folder, or the sdist's go/), and the library is
  QA_SHARD_ORT_LIB or the checkout's build/ort/ (`make ort`). What is
  missing is said, with what to do.
An sdist carries the Go module's sources (go/), so that a wheel can be
built from it where Go and a C compiler are.
"""

import os
import platform
import re
import shutil
import subprocess
import tempfile

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: The ONNX Runtime release the binary is built and tested against.
ORT_VERSION = "1.30.0"
MIN_GLIBC = (2, 17)


class NativeBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version, build_data):
        if self.target_name == "sdist":
            module = module_root(self.root)
            if module is None:
                raise RuntimeError("an sdist of qa-shard carries the Go module it builds the binary from, and none is "
                                   "here: build the sdist from a checkout (python/ inside the repository)")
            for path, rel in go_sources(module):
                build_data["force_include"][path] = "go/" + rel
            return
        if self.target_name != "wheel" or version == "editable":
            return
        binary, libs = self.native()
        build_data["pure_python"] = False
        build_data["tag"] = "py3-none-" + platform_tag([binary] + libs)
        build_data["shared_scripts"][binary] = "qa-shard"
        for lib in libs:
            build_data["shared_data"][lib] = "lib/qa-shard/" + os.path.basename(lib)
        notice = os.path.join(self._scratch(), "ONNXRUNTIME.txt")
        with open(notice, "w", encoding="utf-8") as f:
            f.write("libonnxruntime.so.1 and any provider libraries here: ONNX Runtime (%s).\n"
                    "ONNX Runtime is Copyright (c) Microsoft Corporation, under the MIT License.\n"
                    % os.environ.get("QA_SHARD_WHEEL_ORT", ORT_VERSION))
        build_data["shared_data"][notice] = "lib/qa-shard/ONNXRUNTIME.txt"

    def finalize(self, version, build_data, artifact_path):
        scratch = getattr(self, "_scratch_dir", None)
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)

    def _scratch(self):
        if getattr(self, "_scratch_dir", None) is None:
            self._scratch_dir = tempfile.mkdtemp(prefix="qa-shard-wheel-")
        return self._scratch_dir

    def native(self):
        """The binary and the library files the wheel carries."""
        binary = os.environ.get("QA_SHARD_WHEEL_BIN")
        if binary:
            libs = [p for p in os.environ.get("QA_SHARD_WHEEL_LIBS", "").split(":") if p]
            for p in [binary] + libs:
                if not os.path.isfile(p):
                    raise RuntimeError("QA_SHARD_WHEEL_BIN/QA_SHARD_WHEEL_LIBS name %s, which is not a file" % p)
            if not libs:
                raise RuntimeError("QA_SHARD_WHEEL_LIBS names no ONNX Runtime library for the wheel")
            return binary, libs
        module = module_root(self.root)
        if module is None:
            raise RuntimeError("no qa-shard binary to put in the wheel: set QA_SHARD_WHEEL_BIN and QA_SHARD_WHEEL_LIBS, "
                               "or build from a checkout or an sdist, which carry the Go sources")
        return self.build_binary(module), [self.ort_library(module)]

    def build_binary(self, module):
        go = shutil.which("go")
        if go is None:
            raise RuntimeError("building qa-shard's wheel from source needs Go (1.26 or newer) and a C compiler (cgo): "
                               "install them and build again, or install a prebuilt qa-shard wheel")
        out = os.path.join(self._scratch(), "qa-shard")
        env = dict(os.environ, CGO_ENABLED="1")
        ldflags = "-X main.build=%s+source" % self.metadata.version
        cmd = [go, "build", "-trimpath", "-ldflags", ldflags, "-o", out, "./cmd/qa-shard"]
        r = subprocess.run(cmd, cwd=module, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise RuntimeError("go build of qa-shard failed (a C compiler is needed too: cgo):\n" + r.stdout[-4000:])
        return out

    def ort_library(self, module):
        lib = os.environ.get("QA_SHARD_ORT_LIB") or os.path.join(module, "build", "ort", "libonnxruntime.so.1")
        if not os.path.isfile(lib):
            raise RuntimeError("the wheel carries ONNX Runtime's CPU library (%s), and none was found: set "
                               "QA_SHARD_ORT_LIB to its libonnxruntime.so.1 (from the npm package onnxruntime-node@%s; "
                               "in a checkout, `make ort` fetches it)" % (ORT_VERSION, ORT_VERSION))
        return lib


def module_root(root):
    """The Go module qa-shard is built from: the sdist's go/ or the checkout
    around python/ (None when neither is there)."""
    for d in (os.path.join(root, "go"), os.path.dirname(os.path.abspath(root))):
        try:
            with open(os.path.join(d, "go.mod"), encoding="utf-8") as f:
                if re.search(r"^module qa-shard\s*$", f.read(), re.M):
                    return d
        except OSError:
            pass
    return None


def go_sources(module):
    """The files `go build ./cmd/qa-shard` reads in the module, as (path,
    path relative to the module): go.mod, go.sum and, for every package it
    builds, its Go, C and embedded files (listed by go list)."""
    go = shutil.which("go")
    if go is None:
        raise RuntimeError("making qa-shard's sdist lists the Go sources with `go list`: install Go (1.26 or newer)")
    fmt = "{{.Dir}}\t{{join .GoFiles \" \"}} {{join .CgoFiles \" \"}} {{join .CFiles \" \"}} {{join .HFiles \" \"}} {{join .EmbedFiles \" \"}}"
    r = subprocess.run([go, "list", "-deps", "-f", "{{if not .Standard}}" + fmt + "{{end}}", "./cmd/qa-shard"], cwd=module,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ, GOFLAGS="-mod=mod"))
    if r.returncode != 0:
        raise RuntimeError("go list of qa-shard's sources failed:\n" + r.stderr[-4000:])
    out = [(os.path.join(module, n), n) for n in ("go.mod", "go.sum")]
    for line in r.stdout.splitlines():
        if not line.strip():
            continue
        d, files = line.split("\t", 1)
        if not os.path.abspath(d).startswith(os.path.abspath(module) + os.sep):
            continue  # a dependency's, from the module cache: go build fetches it
        for name in files.split():
            path = os.path.join(d, name)
            out.append((path, os.path.relpath(path, module)))
    return out


def platform_tag(files):
    """manylinux_X_Y_x86_64 for the newest GLIBC_X.Y any of files needs."""
    if platform.machine() not in ("x86_64", "AMD64"):
        raise RuntimeError("qa-shard's wheel is built for x86-64 Linux only (this is %s)" % platform.machine())
    need = MIN_GLIBC
    for path in files:
        with open(path, "rb") as f:
            data = f.read()
        for m in re.finditer(rb"GLIBC_(\d+)\.(\d+)", data):
            need = max(need, (int(m.group(1)), int(m.group(2))))
    return "manylinux_%d_%d_x86_64" % need
