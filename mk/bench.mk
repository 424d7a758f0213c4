# Benchmark: the whole picture side by side in one run (qa-shard bench):
# the raw model at every candidate shape (the best is the ceiling),
# qa-shard end to end with the previous defaults, by hand (the best raw
# shape pinned), tuned from scratch and from the cache the first run
# wrote, the int8 copy qa-shard quantize makes, and the naive truncating
# batch-1 loop, as medians of interleaved repetitions with the load
# average. Then scheduling on simulated devices (with the host gap between
# two batches of a replica), the input formats, and the Go benchmarks. The model is generated (bert-base: ~440 MB, never
# committed); BENCH_MODEL=small runs the 4-layer, 256-hidden one,
# BENCH_MODEL=large the bert-large-sized one (24 layers of 1024, ~1.34 GB).
BENCH_MODEL ?= base
# 16 documents of bert-base take 16 minutes; the small model answers them in
# 2 s a run, where opening sessions and the tuner's first batches are most
# of the time, so it gets the 300 documents the speed targets are set on;
# bert-large runs a window in about 5 s of one core, so it gets 6.
BENCH_DOCS ?= $(if $(filter small,$(BENCH_MODEL)),300,$(if $(filter large,$(BENCH_MODEL)),6,16))
BENCH_REPS ?= 3
BENCH_DEVICES ?= cpu
.PHONY: bench
bench: ort $(BIN) $(MODELS)/$(BENCH_MODEL)/model.onnx $(MODELS)/$(BENCH_MODEL)-int8/model.onnx
	$(GO) run ./tools/gencorpus -n $(BENCH_DOCS) -min-words 20 -max-words 6000 -seed 2 -out $(BUILD)/bench-corpus.jsonl
	@echo "load average before: $$(cut -d' ' -f1-3 /proc/loadavg)"
	$(BIN) bench --model $(MODELS)/$(BENCH_MODEL) --int8-model $(MODELS)/$(BENCH_MODEL)-int8 \
		--input $(BUILD)/bench-corpus.jsonl --devices $(BENCH_DEVICES) --reps $(BENCH_REPS)
	$(BIN) bench --scheduling
	$(BIN) bench --inputs
	$(TEST_ENV) $(GO) test -tags $(GO_TEST_TAGS) -run '^$$' -bench . -benchtime 2s -cpu 1 ./tokenizer ./qa
	@echo "load average after: $$(cut -d' ' -f1-3 /proc/loadavg)"
	$(MAKE) --no-print-directory bench-tokenizers

# Each family's tokenizer against Hugging Face's Rust library (npm
# tokenizers, one thread) on the same texts, the contexts of a generated
# corpus: tokens per second on one core, as the median of interleaved
# repetitions, and their ratio.
TOKBENCH_DOCS ?= 300
TOKBENCH_REPS ?= 3
TOKBENCH_CORPUS := $(BUILD)/bench-tokenizers.jsonl
TOKBENCH_BERT := $(BUILD)/tokenizers/bert/tokenizer.json
$(TOKBENCH_BERT): $(VOCAB_JSON)
	@mkdir -p $(dir $@)
	$(GO) run ./tools/bertjson -o $@
.PHONY: bench-tokenizers
bench-tokenizers: tokenizer-fixtures $(TOKBENCH_BERT)
	cd $(TOKDATA) && npm ci --silent
	$(GO) run ./tools/gencorpus -n $(TOKBENCH_DOCS) -min-words 20 -max-words 6000 -seed 2 -out $(TOKBENCH_CORPUS) >/dev/null
	$(GO) build -o $(BUILD)/bin/tokbench ./tools/tokbench
	@echo "tokenizers, $(TOKBENCH_DOCS) contexts of $(TOKBENCH_CORPUS) ($$(wc -c < $(TOKBENCH_CORPUS)) bytes), one core, median of $(TOKBENCH_REPS) interleaved repetitions; load average before: $$(cut -d' ' -f1-3 /proc/loadavg)"
	@printf '%-8s %10s %16s %16s %8s\n' family tokens "qa-shard tok/s" "HF (Rust) tok/s" ratio
	@for fam in bert roberta xlmr deberta albert; do \
		tj=$(BUILD)/tokenizers/$$fam/tokenizer.json; go_r=(); hf_r=(); \
		for rep in $$(seq $(TOKBENCH_REPS)); do \
			g=$$($(BUILD)/bin/tokbench -tokenizer $$tj -input $(TOKBENCH_CORPUS)) || exit 1; \
			h=$$(RAYON_NUM_THREADS=1 node $(TOKDATA)/bench.mjs $$tj $(TOKBENCH_CORPUS)) || exit 1; \
			go_r+=($$(echo "$$g" | sed 's/.*"tokens_per_s":\([0-9.e+]*\).*/\1/')); \
			hf_r+=($$(echo "$$h" | sed 's/.*"tokens_per_s":\([0-9.e+]*\).*/\1/')); \
			gt=$$(echo "$$g" | sed 's/.*"tokens":\([0-9]*\).*/\1/'); ht=$$(echo "$$h" | sed 's/.*"tokens":\([0-9]*\).*/\1/'); \
			[ "$$gt" = "$$ht" ] || { echo "$$fam: qa-shard counted $$gt tokens, HF $$ht"; exit 1; }; \
		done; \
		gm=$$(printf '%s\n' "$${go_r[@]}" | sort -g | sed -n "$$(( ($(TOKBENCH_REPS)+1)/2 ))p"); \
		hm=$$(printf '%s\n' "$${hf_r[@]}" | sort -g | sed -n "$$(( ($(TOKBENCH_REPS)+1)/2 ))p"); \
		awk -v f=$$fam -v t=$$((gt / 2)) -v g=$$gm -v h=$$hm 'BEGIN { printf "%-8s %10d %16.0f %16.0f %7.2fx\n", f, t, g, h, g / h }'; \
	done
	@$(MAKE) --no-print-directory bench-tokenizers-ja
	@echo "load average after: $$(cut -d' ' -f1-3 /proc/loadavg)"
	@$(MAKE) --no-print-directory bench-tokenizer-load

# Reading a model folder's tokenizer at start, one core, $(TOKLOAD_REPS)
# repetitions: a folder holding only ALBERT's spiece.model (converted as
# transformers' AlbertConverter does) beside the ALBERT fixture's
# tokenizer.json built from the same model (read as written).
TOKLOAD_REPS ?= 5
TOKLOAD_SPM := $(BUILD)/tokenizers/albert-spm
$(TOKLOAD_SPM)/spiece.model: $(SPM_JS)
	@mkdir -p $(@D)
	sed -n 's/.*clean_30k_b64 = "\([^"]*\)".*/\1/p' $(SPM_JS) | base64 -d > $@.tmp && mv $@.tmp $@
	echo '{"model_type": "albert"}' > $(@D)/config.json
.PHONY: bench-tokenizer-load
bench-tokenizer-load: tokenizer-fixtures $(TOKLOAD_SPM)/spiece.model
	$(GO) build -o $(BUILD)/bin/tokbench ./tools/tokbench
	@echo "tokenizer load, one core, $(TOKLOAD_REPS) repetitions; $$($(BUILD)/bin/tokbench -isa); load average before: $$(cut -d' ' -f1-3 /proc/loadavg)"
	@printf '%-34s %-20s %10s %10s\n' folder "read as" "median ms" "min ms"
	@for d in $(TOKLOAD_SPM) $(BUILD)/tokenizers/albert; do \
		r=$$($(BUILD)/bin/tokbench -load $$d -reps $(TOKLOAD_REPS)) || exit 1; \
		echo "$$r" | sed 's/.*"median_ms":\([0-9.e+]*\).*"min_ms":\([0-9.e+]*\).*"origin":"\([^"]*\)".*/\1 \2 \3/' | \
			awk -v d=$$(basename $$d) '{ printf "%-34s %-20s %10.1f %10.1f\n", d, $$3, $$1, $$2 }'; \
	done
	@echo "load average after: $$(cut -d' ' -f1-3 /proc/loadavg)"

# Japanese BERT: MeCab (IPAdic) + WordPiece with the real
# bert-base-japanese-v3 vocabulary, qa-shard against the Python reference
# it matches (tools/jagolden: transformers' logic over python3-mecab, the
# same libmecab), on documents of 20 golden texts each.
TOKBENCH_JA := $(BUILD)/bench-tokenizers-ja
.PHONY: bench-tokenizers-ja
bench-tokenizers-ja: $(BIN)
	$(call require_packages,$(DEPS_TEST) python3-mecab,deps deps-dev)
	@mkdir -p $(TOKBENCH_JA)/model
	cp $(JA_VOCAB) $(TOKBENCH_JA)/model/vocab.txt
	cp $(JA_GOLDENS)/ipadic-wordpiece.config.json $(TOKBENCH_JA)/model/tokenizer_config.json
	$(JA_PYTHON) tools/jagolden/bench.py corpus $(JA_GOLDENS)/texts.jsonl.gz $(TOKBENCH_JA)/docs.jsonl
	$(GO) build -o $(BUILD)/bin/tokbench ./tools/tokbench
	@echo "Japanese BERT (MeCab IPAdic + WordPiece), $$(wc -l < $(TOKBENCH_JA)/docs.jsonl) contexts, one core, median of $(TOKBENCH_REPS); $$($(BIN) version | sed -n 's/^cpu: /CPU: /p'), load average $$(cut -d' ' -f1-3 /proc/loadavg)"
	@go_r=(); py_r=(); \
	for rep in $$(seq $(TOKBENCH_REPS)); do \
		g=$$($(BUILD)/bin/tokbench -model $(TOKBENCH_JA)/model -input $(TOKBENCH_JA)/docs.jsonl) || exit 1; \
		p=$$($(JA_PYTHON) tools/jagolden/bench.py time --vocab $(JA_VOCAB) --ipadic $(call dicdir_of,mecab-ipadic-utf8,ipadic-utf8) $(TOKBENCH_JA)/docs.jsonl) || exit 1; \
		go_r+=($$(echo "$$g" | sed 's/.*"tokens_per_s":\([0-9.e+]*\).*/\1/')); \
		py_r+=($$(echo "$$p" | sed 's/.*"tokens_per_s": \([0-9.e+]*\).*/\1/')); \
		gt=$$(echo "$$g" | sed 's/.*"tokens":\([0-9]*\).*/\1/'); pt=$$(echo "$$p" | sed 's/.*"tokens": \([0-9]*\).*/\1/'); \
		[ "$$gt" = "$$pt" ] || { echo "ja: qa-shard counted $$gt tokens, Python $$pt"; exit 1; }; \
	done; \
	gm=$$(printf '%s\n' "$${go_r[@]}" | sort -g | sed -n "$$(( ($(TOKBENCH_REPS)+1)/2 ))p"); \
	pm=$$(printf '%s\n' "$${py_r[@]}" | sort -g | sed -n "$$(( ($(TOKBENCH_REPS)+1)/2 ))p"); \
	printf '%-8s %10s %16s %16s %8s\n' family tokens "qa-shard tok/s" "Python tok/s" ratio; \
	awk -v t=$$((gt / 2)) -v g=$$gm -v h=$$pm 'BEGIN { printf "%-8s %10d %16.0f %16.0f %7.2fx\n", "ja-mecab", t, g, h, g / h }'

# The int8 copy of a generated model (qa-shard quantize refuses to write
# over a folder). A static pattern rule: as an implicit rule it would lose
# to the generator's $(MODELS)/%/model.onnx whenever the float32 model is
# not built yet, and the "int8" folder would get a float32 model.
INT8_MODELS := $(foreach m,tiny small base large,$(MODELS)/$(m)-int8/model.onnx)
$(INT8_MODELS): $(MODELS)/%-int8/model.onnx: $(MODELS)/%/model.onnx | $(BIN)
	rm -rf $(MODELS)/$*-int8
	$(BIN) quantize --model $(MODELS)/$* --out $(MODELS)/$*-int8

# Share of CPU time the tokenizer takes in a CPU run of each demo model
# (BERT WordPiece, RoBERTa BPE, ALBERT Unigram) on the demo corpus,
# sampled by Linux perf (Debian's linux-perf: `sudo make deps-dev`): the
# inclusive share of Tokenizer.Encode (allocation and GC work under it
# included) and of tokenizer.Load (once per run). Then the Japanese demo
# model (MeCab + WordPiece) on the same corpus in Japanese (gencorpus -lang
# ja), the same two questions; libmecab has no frame pointers, so its
# samples reach Encode only through DWARF call graphs (perf --call-graph
# dwarf), and its Load is modeldir.OpenWith (MeCab and its dictionary
# opened), which qa-shard calls.
PROFILE_DOCS ?= 300
PROFILE_QUESTIONS_JA := --question "この会社を設立したのは誰ですか？" --question "本社はどこにありますか？"
.PHONY: profile-tokenizer
profile-tokenizer: $(BIN) ort $(MODELS)/demo/model.onnx $(MODELS)/demo-bpe/model.onnx $(MODELS)/demo-unigram/model.onnx \
		$(MODELS)/demo-ja/model.onnx
	$(call require_command,perf,linux-perf,deps-dev)
	$(GO) run ./tools/gencorpus -n $(PROFILE_DOCS) -min-words 20 -max-words 1500 -out $(BUILD)/profile-docs.jsonl >/dev/null
	$(GO) run ./tools/gencorpus -lang ja -n $(PROFILE_DOCS) -min-words 20 -max-words 1500 -out $(BUILD)/profile-docs-ja.jsonl >/dev/null
	@echo "load average before: $$(cut -d' ' -f1-3 /proc/loadavg)"
	@for m in demo demo-bpe demo-unigram; do \
		perf record -q -F 499 -g -o $(BUILD)/perf-$$m.data -- $(BIN) --devices cpu:2 --model $(MODELS)/$$m \
			--input $(BUILD)/profile-docs.jsonl $(DEMO_QUESTIONS) --output $(BUILD)/profile-$$m.jsonl --overwrite \
			--log-level warn >/dev/null 2>&1 || exit 1; \
		perf report -i $(BUILD)/perf-$$m.data --children --sort sym -g none 2>/dev/null | \
			awk -v m=$$m '/tokenizer\.\(\*Tokenizer\)\.Encode$$/ {e=$$1} /tokenizer\.Load$$/ {l=$$1} END {printf "%-13s tokenizer Encode %6s of CPU samples, Load %6s\n", m, e, l}'; \
	done
	@perf record -q -F 499 --call-graph dwarf -o $(BUILD)/perf-demo-ja.data -- $(BIN) --devices cpu:2 --model $(MODELS)/demo-ja \
		--input $(BUILD)/profile-docs-ja.jsonl $(PROFILE_QUESTIONS_JA) --output $(BUILD)/profile-demo-ja.jsonl --overwrite \
		--log-level warn >/dev/null 2>&1
	@perf report -i $(BUILD)/perf-demo-ja.data --children --sort sym -g none 2>/dev/null | \
		awk '/tokenizer\.\(\*Tokenizer\)\.Encode$$/ {e=$$1} /modeldir\.OpenWith$$/ {l=$$1} END {printf "%-13s tokenizer Encode %6s of CPU samples, Load %6s\n", "demo-ja", e, l}'
	@perf report -i $(BUILD)/perf-demo-ja.data --no-children --sort dso 2>/dev/null | \
		awk '/libmecab/ {printf "%-13s plus in libmecab %6s (self; not unwound to Encode)\n", "", $$1}'
	@echo "load average after: $$(cut -d' ' -f1-3 /proc/loadavg)"

# make bench-checkpoint: the start-up of a run from a bert-base and a
# bert-large sized checkpoint folder: the graph built alone, a run that
# builds it, a run from the model cache, a run from the ONNX export;
# wall time and peak RSS, medians of 3 (scripts/bench-checkpoint.sh; the
# checkpoints, 1.7 GB, are generated under build/bench-checkpoint).
.PHONY: bench-checkpoint
bench-checkpoint: ort $(BIN) $(VOCAB_JSON)
	scripts/bench-checkpoint.sh $(BIN) $(ORT_LIB) $(VOCAB_JSON) $(BUILD)/bench-checkpoint 3

# make bench-graphs: the standard graph of a checkpoint (what optimum
# exports), qa-shard's fused graph and the graph ONNX Runtime's own
# transformer optimizer makes, timed side by side on the CPU at demo,
# bert-base and bert-large sizes (scripts/bench-graphs.sh; ONNX Runtime's
# Python package, at the library's version, into the reference venv, whose
# torch the optimizer imports; the checkpoints, 1.8 GB, under
# build/bench-graphs).
.PHONY: bench-graphs
bench-graphs: ort $(BIN) $(VOCAB_JSON) deps-reference
	$(REFERENCE_PY) -m pip install -q -r tools/benchgraphs/requirements.txt
	scripts/bench-graphs.sh $(BIN) $(REFERENCE_PY) $(VOCAB_JSON) $(BUILD)/bench-graphs 5
