# Accuracy, side by side in one table: SQuAD exact match and F1 of qa-shard
# (sliding windows), of its int8 copy (qa-shard quantize: one unpadded window
# per batch) and of the naive truncating loop (batch of one, first 512
# tokens) on a held-out corpus of long documents, split by whether the gold
# answer starts within the first 512 tokens of its document or beyond; then
# the same for the demo models trained with RoBERTa's and ALBERT's
# tokenizers; then the Japanese demo model on a Japanese held-out corpus of
# its own, when this machine has what it needs (the real vocabulary kept
# outside the repository, MeCab with IPAdic); else one line says what is
# missing and the row is skipped (under CI=true that fails).
EVAL := $(BUILD)/eval
EVAL_DOCS ?= 150
EVAL_SEED ?= 11
EVAL_MIN_WORDS ?= 100
EVAL_MAX_WORDS ?= 6000
EVAL_RUN = $(BIN) --devices cpu:2 --input $(EVAL)/docs.jsonl --questions-file $(EVAL)/questions.txt \
	--overwrite --log-format console

# The demo models trained with other tokenizers (mk/train.mk) are scored
# on the same corpus and gold spans, each split at 512 of its own tokens
# (the gold file again, its token positions from that tokenizer).
TOKENIZERS ?= $(BUILD)/tokenizers
EVAL_CORPUS = -n $(EVAL_DOCS) -min-words $(EVAL_MIN_WORDS) -max-words $(EVAL_MAX_WORDS) -seed $(EVAL_SEED)

# The Japanese demo model (internal/testing/testmodel/demo-ja) gets its own held-out corpus:
# gencorpus -lang ja on the same seed and sizes, split at its own token 512.
EVAL_RUN_JA = $(BIN) --devices cpu:2 --input $(EVAL)/docs-ja.jsonl --questions-file $(EVAL)/questions-ja.txt \
	--overwrite --log-format console

.PHONY: eval
eval: ort $(BIN) $(MODELS)/demo/model.onnx $(MODELS)/demo-bpe/model.onnx $(MODELS)/demo-unigram/model.onnx
	@mkdir -p $(EVAL)
	$(GO) run ./tools/gencorpus -n $(EVAL_DOCS) -min-words $(EVAL_MIN_WORDS) -max-words $(EVAL_MAX_WORDS) -seed $(EVAL_SEED) \
		-out $(EVAL)/docs.jsonl -gold $(EVAL)/gold.jsonl -tokenizer $(MODELS)/demo/tokenizer.json \
		-questions-out $(EVAL)/questions.txt
	rm -rf $(EVAL)/demo-int8
	$(BIN) quantize --model $(MODELS)/demo --out $(EVAL)/demo-int8 --ort-lib $(ORT_LIB) --log-format console
	$(EVAL_RUN) --model $(MODELS)/demo --output $(EVAL)/qa-shard.jsonl
	$(EVAL_RUN) --model $(EVAL)/demo-int8 --output $(EVAL)/qa-shard-int8.jsonl
	$(GO) run ./tools/naiveqa -model $(MODELS)/demo -input $(EVAL)/docs.jsonl \
		-questions-file $(EVAL)/questions.txt -output $(EVAL)/naive.jsonl -threads 2
	$(GO) run ./tools/gencorpus $(EVAL_CORPUS) -out $(EVAL)/docs-bpe.jsonl -gold $(EVAL)/gold-bpe.jsonl \
		-tokenizer $(TOKENIZERS)/roberta/tokenizer.json
	cmp $(EVAL)/docs.jsonl $(EVAL)/docs-bpe.jsonl
	$(EVAL_RUN) --model $(MODELS)/demo-bpe --output $(EVAL)/qa-shard-bpe.jsonl
	$(GO) run ./tools/gencorpus $(EVAL_CORPUS) -out $(EVAL)/docs-unigram.jsonl -gold $(EVAL)/gold-unigram.jsonl \
		-tokenizer $(TOKENIZERS)/albert/tokenizer.json
	cmp $(EVAL)/docs.jsonl $(EVAL)/docs-unigram.jsonl
	$(EVAL_RUN) --model $(MODELS)/demo-unigram --output $(EVAL)/qa-shard-unigram.jsonl
	@echo
	@echo "held-out corpus: tools/gencorpus seed $(EVAL_SEED), $(EVAL_DOCS) documents of $(EVAL_MIN_WORDS) to $(EVAL_MAX_WORDS) words ($$(wc -c < $(EVAL)/docs.jsonl) bytes); demo model internal/testing/testmodel/demo"
	@echo "int8: qa-shard quantize's default scheme; this $$($(BIN) version | sed -n 's/^cpu: /CPU: /p') (the instruction set decides the int8 kernels)"
	@$(BIN) eval --gold $(EVAL)/gold.jsonl "qa-shard=$(EVAL)/qa-shard.jsonl" \
		"qa-shard int8=$(EVAL)/qa-shard-int8.jsonl" "naive 512=$(EVAL)/naive.jsonl"
	@echo
	@echo "demo model trained with RoBERTa's byte-level BPE (internal/testing/testmodel/demo-bpe), split at its own token 512"
	@$(BIN) eval --gold $(EVAL)/gold-bpe.jsonl "qa-shard bpe=$(EVAL)/qa-shard-bpe.jsonl"
	@echo
	@echo "demo model trained with ALBERT's Unigram (internal/testing/testmodel/demo-unigram), split at its own token 512"
	@$(BIN) eval --gold $(EVAL)/gold-unigram.jsonl "qa-shard unigram=$(EVAL)/qa-shard-unigram.jsonl"
	@echo
	@missing="$(EVAL_JA_MISSING)"; \
	if [ -z "$$missing" ]; then $(MAKE) --no-print-directory eval-ja; \
	elif [ "$$CI" = true ]; then echo "the Japanese row cannot run (CI=true), missing:$$missing" >&2; exit 1; \
	else echo "skipped the Japanese demo model's row, missing:$$missing"; fi

# What the Japanese row needs and this machine lacks ("" when nothing).
EVAL_JA_MISSING = $$(test -f $(JA_VOCAB) || echo " $(JA_VOCAB) (bert-base-japanese-v3's vocab.txt, kept outside the repository: tokenizer/testdata/real/SOURCES.md says where it comes from)"; \
	if command -v dpkg-query >/dev/null; then for p in libmecab2 mecab-ipadic-utf8; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || echo " Debian's $$p (sudo make deps)"; done; fi)

.PHONY: eval-ja
eval-ja: ort $(BIN) $(MODELS)/demo-ja/model.onnx
	@mkdir -p $(EVAL)
	$(GO) run ./tools/gencorpus -lang ja $(EVAL_CORPUS) -out $(EVAL)/docs-ja.jsonl -gold $(EVAL)/gold-ja.jsonl \
		-tokenizer $(MODELS)/demo-ja -questions-out $(EVAL)/questions-ja.txt
	$(EVAL_RUN_JA) --model $(MODELS)/demo-ja --output $(EVAL)/qa-shard-ja.jsonl
	@echo
	@echo "Japanese demo model (internal/testing/testmodel/demo-ja: bert-base-japanese-v3's vocabulary, MeCab with ipadic) on gencorpus -lang ja seed $(EVAL_SEED) ($$(wc -c < $(EVAL)/docs-ja.jsonl) bytes), split at its own token 512"
	@$(BIN) eval --gold $(EVAL)/gold-ja.jsonl "qa-shard ja=$(EVAL)/qa-shard-ja.jsonl"

# make fp16-check: how far fp16's answers are from float32's, per family
# (scripts/fp16-check.sh): the trained demo models and the seeded
# checkpoints of every family, on the CPU (docs/models.md's table).
.PHONY: fp16-check
fp16-check: ort $(BIN) reference-run $(MODELS)/demo/model.onnx $(MODELS)/demo-bpe/model.onnx \
		$(MODELS)/demo-unigram/model.onnx $(MODELS)/demo-ja/model.onnx
	scripts/fp16-check.sh $(BIN) $(MODELS) $(REFERENCE_OUT)/checkpoints $(BUILD)/fp16-check
