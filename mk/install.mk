# Installing qa-shard with its ONNX Runtime, so that the installed binary
# runs with no flag or variable: it finds the library in
# PREFIX/lib/qa-shard/ beside PREFIX/bin/ (worker.Locate), symbolic links
# to the binary resolved.
#
#   make install [PREFIX=DIR]     DIR/bin/qa-shard and ONNX Runtime's CPU
#                                 build (make ort) in DIR/lib/qa-shard/,
#                                 the Slurm scripts (configs/slurm) in
#                                 DIR/share/qa-shard/slurm/;
#                                 DIR is ~/.local unless given (no root
#                                 needed), never inside this clone (but
#                                 under build/); it says the PATH line to
#                                 add when DIR/bin is not on PATH
#   make install-gpu PREFIX=DIR   the same with ONNX Runtime's GPU build
#                                 (make ort-gpu: 1.29.0 for CUDA 13, core and
#                                 CUDA/TensorRT providers), which runs on
#                                 the CPU too
#   make dist, make dist-gpu      build/dist/qa-shard-VERSION-linux-x86_64[-gpu].tar.gz:
#                                 the same layout in one folder, to unpack
#                                 anywhere (a cluster's shared file system)
#
# Either install replaces the library folder whole, so a GPU build's
# providers never outlive it beside a CPU build, nor the reverse.
PREFIX ?= $(HOME)/.local
DIST := $(BUILD)/dist
OS_ARCH := linux-x86_64

# $(call install_tree,DIR,LIBS,WHAT): bin/qa-shard and lib/qa-shard/ under DIR.
define install_tree
	@case "$(abspath $(1))/" in "$(CURDIR)/build/"*) ;; "$(CURDIR)/"*) \
		echo "PREFIX=$(1) is inside this clone: install outside it (the default is ~/.local), or use make dist" >&2; exit 2;; esac
	install -d $(1)/bin $(1)/lib
	rm -rf $(1)/lib/qa-shard.new && install -d $(1)/lib/qa-shard.new
	install -m 644 $(2) $(1)/lib/qa-shard.new/
	printf '%s\n' "libonnxruntime.so.1 and any provider libraries here: $(3)." \
		"ONNX Runtime is Copyright (c) Microsoft Corporation, under the MIT License." >$(1)/lib/qa-shard.new/ONNXRUNTIME.txt
	rm -rf $(1)/lib/qa-shard && mv $(1)/lib/qa-shard.new $(1)/lib/qa-shard
	install -m 755 $(BIN) $(1)/bin/qa-shard
	install -d $(1)/share/qa-shard/slurm
	install -m 755 configs/slurm/submit configs/slurm/*.sbatch $(1)/share/qa-shard/slurm/
	env -u QA_SHARD_ORT_LIB $(1)/bin/qa-shard version
	@echo "installed $(1)/bin/qa-shard, ONNX Runtime in $(1)/lib/qa-shard/ and the Slurm scripts in $(1)/share/qa-shard/slurm/"
	@case ":$$PATH:" in *":$(abspath $(1))/bin:"*) ;; *) \
		echo "$(abspath $(1))/bin is not on your PATH: add it, for example in ~/.bashrc:"; \
		echo "  export PATH=\"$(abspath $(1))/bin:\$$PATH\"";; esac
endef

GPU_ORT_LIBS = $(KIT_ORT)/libonnxruntime.so.1 $(foreach p,$(GPU_PROVIDERS_SHA256),$(KIT_ORT)/$(firstword $(subst =, ,$(p))))
CPU_ORT_WHAT := ONNX Runtime $(ORT_VERSION), CPU build, from the npm package onnxruntime-node@$(ORT_VERSION)
GPU_ORT_WHAT := ONNX Runtime $(GPU_ORT_VERSION), GPU build for CUDA 13: the core from the npm package onnxruntime-node@$(GPU_ORT_VERSION), the providers from the npm package $(GPU_PROVIDERS_PKG)@$(GPU_PROVIDERS_VERSION)

.PHONY: install install-gpu dist dist-gpu
install: $(BIN) $(ORT_LIB)
	$(call install_tree,$(DESTDIR)$(PREFIX),$(ORT_LIB),$(CPU_ORT_WHAT))
install-gpu: $(BIN) ort-gpu
	$(call install_tree,$(DESTDIR)$(PREFIX),$(GPU_ORT_LIBS),$(GPU_ORT_WHAT))

DIST_NAME := qa-shard-$(VERSION)-$(OS_ARCH)
dist: $(BIN) $(ORT_LIB)
	rm -rf $(DIST)/$(DIST_NAME)
	$(call install_tree,$(DIST)/$(DIST_NAME),$(ORT_LIB),$(CPU_ORT_WHAT))
	tar -C $(DIST) -czf $(DIST)/$(DIST_NAME).tar.gz $(DIST_NAME)
	@echo "$(DIST)/$(DIST_NAME).tar.gz: unpack anywhere and run $(DIST_NAME)/bin/qa-shard"
dist-gpu: $(BIN) ort-gpu
	rm -rf $(DIST)/$(DIST_NAME)-gpu
	$(call install_tree,$(DIST)/$(DIST_NAME)-gpu,$(GPU_ORT_LIBS),$(GPU_ORT_WHAT))
	tar -C $(DIST) -czf $(DIST)/$(DIST_NAME)-gpu.tar.gz $(DIST_NAME)-gpu
	@echo "$(DIST)/$(DIST_NAME)-gpu.tar.gz: unpack anywhere and run $(DIST_NAME)-gpu/bin/qa-shard"

# make readme-test: README's quick start, word for word, on a lone clone
# as an unprivileged user (scripts/readme-test.sh; CI runs it).
.PHONY: readme-test
readme-test:
	scripts/readme-test.sh
