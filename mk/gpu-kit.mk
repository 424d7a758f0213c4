# The GPU kit (included by the Makefile): everything needed to check
# qa-shard on an offline GPU machine, compressed and split into parts that
# each fit one transfer, and the CPU-only run of the same check for CI.
#
#   make gpu-kit         build/gpu-kit/parts/: the parts, PARTS.sha256; then
#                        reassembles them into a scratch folder and verifies
#                        every file (scripts/gpu-kit-unpack.sh), and prints
#                        the GPU libraries' dependencies and glibc needs
#   make gpu-check-cpu   stages the same layout with the CPU library and runs
#                        scripts/gpu-check.sh --cpu-only (CI runs this)

# ONNX Runtime's GPU build as one matching version of core and providers:
# the CUDA and TensorRT providers of 1.29.0, built for CUDA 13, ship in the
# npm package below; onnxruntime-node carries the matching core library.
GPU_ORT_VERSION := 1.29.0
GPU_PROVIDERS_PKG := com.github.asus4.onnxruntime.linux-x64-gpu
GPU_PROVIDERS_VERSION := 0.4.9
GPU_ORT_CORE_SHA256 := 89688f5cf51c7e31befbb7b9101bc027799009b18d1baa9a5b1146a72e69538d
GPU_PROVIDERS_SHA256 := \
	libonnxruntime_providers_cuda.so=56cf3254b118ad837ccc4ed8f6d1b23504bbf7ef91b34cbc0b289cb7f10b3037 \
	libonnxruntime_providers_shared.so=c6a12593396095f5670160e284c35d1700b7708cf3037b7042e2a5200ccae772 \
	libonnxruntime_providers_tensorrt.so=ef6071798a339038ad66c428fb1a809cf8e499bffc3b6870e4e8bc4f4c6a6320
# What the CUDA provider must link against (and nothing of another CUDA).
GPU_CUDA_NEEDED := libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10

KIT := $(BUILD)/gpu-kit
KIT_NAME := qa-shard-gpu-kit
KIT_ORT := $(KIT)/ort-$(GPU_ORT_VERSION)
KIT_STAGE := $(KIT)/stage
KIT_PARTS := $(KIT)/parts
KIT_PART_SIZE := 60M
KIT_BIN := $(KIT)/bin
KIT_TOOLS := $(KIT_BIN)/qa-shard $(KIT_BIN)/genmodel $(KIT_BIN)/gencorpus
GO_SOURCES := $(shell find . -name '*.go' -not -path './build/*') go.mod go.sum

$(KIT_ORT)/libonnxruntime.so.1:
	@mkdir -p $(KIT_ORT)
	cd $(KIT) && npm pack --silent onnxruntime-node@$(GPU_ORT_VERSION) >/dev/null
	tar xzf $(KIT)/onnxruntime-node-$(GPU_ORT_VERSION).tgz -C $(KIT_ORT) --strip-components=5 \
		package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	echo "$(GPU_ORT_CORE_SHA256)  $@" | sha256sum --check --quiet
	rm -f $(KIT)/onnxruntime-node-$(GPU_ORT_VERSION).tgz

$(KIT_ORT)/libonnxruntime_providers_cuda.so:
	@mkdir -p $(KIT_ORT)
	cd $(KIT) && npm pack --silent $(GPU_PROVIDERS_PKG)@$(GPU_PROVIDERS_VERSION) >/dev/null
	tar xzf $(KIT)/$(GPU_PROVIDERS_PKG)-$(GPU_PROVIDERS_VERSION).tgz -C $(KIT_ORT) --strip-components=4 \
		$(foreach p,$(GPU_PROVIDERS_SHA256),package/Plugins/Linux/x64/$(firstword $(subst =, ,$(p))))
	$(foreach p,$(GPU_PROVIDERS_SHA256),echo "$(lastword $(subst =, ,$(p)))  $(KIT_ORT)/$(firstword $(subst =, ,$(p)))" | sha256sum --check --quiet &&) true
	rm -f $(KIT)/$(GPU_PROVIDERS_PKG)-$(GPU_PROVIDERS_VERSION).tgz

# ONNX Runtime's GPU build alone (core and providers above, checked by
# SHA-256): what `make install-gpu` installs beside the binary, or what a
# run's --ort-lib points at on a GPU node.
GPU_ORT_DIR := $(KIT_ORT)
.PHONY: ort-gpu
ort-gpu: $(KIT_ORT)/libonnxruntime.so.1 $(KIT_ORT)/libonnxruntime_providers_cuda.so
	@echo "ONNX Runtime $(GPU_ORT_VERSION) GPU build (CUDA 13) in $(KIT_ORT)/: --ort-lib $(KIT_ORT)/libonnxruntime.so.1"

# The check runs on a machine without Go: prebuilt binaries, without their
# symbol tables (-s -w: 5 MB less to carry; stack traces still work). The
# generators are pure Go (no cgo), so they run on any Linux of the
# architecture.
KIT_LDFLAGS := -s -w -X main.build=$(VERSION)
$(KIT_BIN)/qa-shard: $(GO_SOURCES)
	$(GO) build -trimpath -ldflags "$(KIT_LDFLAGS)" -o $@ ./cmd/qa-shard
$(KIT_BIN)/genmodel: $(GO_SOURCES)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $@ ./tools/genmodel
$(KIT_BIN)/gencorpus: $(GO_SOURCES)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w" -o $@ ./tools/gencorpus

.PHONY: xz-tool
xz-tool:
	$(call require_command,xz,xz-utils,deps-dev)

.PHONY: gpu-kit
gpu-kit: $(KIT_TOOLS) $(VOCAB_JSON) $(KIT_ORT)/libonnxruntime.so.1 $(KIT_ORT)/libonnxruntime_providers_cuda.so xz-tool
	bash scripts/gpu-kit-deps.sh $(KIT_ORT) "$(GPU_CUDA_NEEDED)" $(KIT_BIN)/qa-shard | tee $(KIT)/deps.txt
	rm -rf $(KIT_STAGE) $(KIT_PARTS)
	bash scripts/gpu-kit-stage.sh $(KIT_STAGE)/$(KIT_NAME) $(KIT_BIN) $(KIT_ORT) $(VOCAB_JSON) \
		"qa-shard $(VERSION); ONNX Runtime $(GPU_ORT_VERSION) (onnxruntime-node core, $(GPU_PROVIDERS_PKG)@$(GPU_PROVIDERS_VERSION) providers, CUDA 13)"
	@mkdir -p $(KIT_PARTS)
	tar -C $(KIT_STAGE) -cf - $(KIT_NAME) | xz -T0 -6 >$(KIT)/$(KIT_NAME).tar.xz
	cd $(KIT_PARTS) && split -b $(KIT_PART_SIZE) -d -a 2 ../$(KIT_NAME).tar.xz $(KIT_NAME).tar.xz.part-
	cd $(KIT_PARTS) && sha256sum $(KIT_NAME).tar.xz.part-* >PARTS.sha256 && \
		(cd .. && sha256sum $(KIT_NAME).tar.xz) | sed 's/$$/  (whole)/' >>PARTS.sha256
	rm -f $(KIT)/$(KIT_NAME).tar.xz
	@echo; echo "parts in $(KIT_PARTS):"; ls -l $(KIT_PARTS)
	@echo; echo "reassembly check (scripts/gpu-kit-unpack.sh into a scratch folder):"
	rm -rf $(KIT)/unpack-check
	bash scripts/gpu-kit-unpack.sh $(KIT_PARTS) $(KIT)/unpack-check
	rm -rf $(KIT)/unpack-check

# The same layout with the CPU library: every step of the check that needs
# no GPU, as CI runs it.
CPU_KIT := $(BUILD)/gpu-check-cpu/$(KIT_NAME)
.PHONY: gpu-check-cpu
gpu-check-cpu: $(KIT_TOOLS) $(VOCAB_JSON) $(ORT_LIB) ort-gpu-check
	rm -rf $(CPU_KIT)
	bash scripts/gpu-kit-stage.sh $(CPU_KIT) $(KIT_BIN) $(dir $(ORT_LIB)) $(VOCAB_JSON) "qa-shard $(VERSION); ONNX Runtime $(ORT_VERSION) CPU build (make ort)"
	QA_SHARD_ORT_LIB= $(CPU_KIT)/scripts/gpu-check.sh --cpu-only $(BUILD)/gpu-check-cpu/results

# The GPU build's path on this CPU-only machine (CI runs it through
# gpu-check-cpu): make install-gpu lays it out beside the binary, which
# then finds it with no flag; version and devices name it, its CUDA and
# TensorRT providers, and the CUDA libraries they lack here; devices
# --check refuses a GPU run it could not make; and the same run on its CPU
# provider gives the answers of the CPU build (scripts/ort-gpu-check.sh).
.PHONY: ort-gpu-check
ort-gpu-check: $(BIN) ort-gpu $(ORT_LIB) $(MODELS)/tiny/model.onnx
	rm -rf $(BUILD)/ort-gpu-check
	$(MAKE) --no-print-directory install-gpu PREFIX=$(abspath $(BUILD))/ort-gpu-check/prefix
	$(GO) run ./tools/gencorpus -n 40 -min-words 20 -max-words 900 -seed 5 -out $(BUILD)/ort-gpu-check/docs.jsonl
	bash scripts/ort-gpu-check.sh $(BUILD)/ort-gpu-check $(ORT_LIB) $(MODELS)/tiny $(BUILD)/ort-gpu-check/docs.jsonl "$(GPU_ORT_VERSION)"
