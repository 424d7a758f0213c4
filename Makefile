# qa-shard: every dependency the project needs is fetched or generated here.
SHELL := /bin/bash
GO ?= go
BUILD := build
ORT_VERSION := 1.30.0
ORT_SHA256 := ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23
ORT_LIB := $(BUILD)/ort/libonnxruntime.so.1
export QA_SHARD_ORT_LIB ?= $(abspath $(ORT_LIB))

.PHONY: ort
ort: $(ORT_LIB)

# ONNX Runtime's CPU build ships inside the npm package onnxruntime-node;
# npm pack downloads the tarball without running any install script.
$(ORT_LIB):
	@mkdir -p $(BUILD)/ort
	cd $(BUILD) && npm pack --silent onnxruntime-node@$(ORT_VERSION) >/dev/null
	tar xzf $(BUILD)/onnxruntime-node-$(ORT_VERSION).tgz -C $(BUILD)/ort --strip-components=5 \
		package/bin/napi-v6/linux/x64/libonnxruntime.so.1
	echo "$(ORT_SHA256)  $@" | sha256sum --check --quiet
	rm -f $(BUILD)/onnxruntime-node-$(ORT_VERSION).tgz
