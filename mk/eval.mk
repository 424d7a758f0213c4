# Accuracy, side by side in one table: SQuAD exact match and F1 of qa-shard
# (sliding windows) and of the naive truncating loop (batch of one, first
# 512 tokens) on a held-out corpus of long documents, split by whether the
# gold answer starts within the first 512 tokens of its document or beyond.
# EVAL_INT8_MODEL: a quantized model directory (qa-shard quantize, pending)
# adds its row beside the float32 one.
EVAL := $(BUILD)/eval
EVAL_DOCS ?= 150
EVAL_SEED ?= 11
EVAL_INT8_MODEL ?=
EVAL_RUN = $(BIN) --devices cpu:2 --input $(EVAL)/docs.jsonl --questions-file $(EVAL)/questions.txt \
	--overwrite --log-format console

.PHONY: eval
eval: ort $(BIN) $(MODELS)/demo/model.onnx
	@mkdir -p $(EVAL)
	$(GO) run ./tools/gencorpus -n $(EVAL_DOCS) -min-words 100 -max-words 6000 -seed $(EVAL_SEED) \
		-out $(EVAL)/docs.jsonl -gold $(EVAL)/gold.jsonl -tokenizer $(MODELS)/demo/tokenizer.json \
		-questions-out $(EVAL)/questions.txt
	$(EVAL_RUN) --model $(MODELS)/demo --output $(EVAL)/qa-shard.jsonl
	$(if $(EVAL_INT8_MODEL),$(EVAL_RUN) --model $(EVAL_INT8_MODEL) --output $(EVAL)/qa-shard-int8.jsonl)
	$(GO) run ./tools/naiveqa -model $(MODELS)/demo -input $(EVAL)/docs.jsonl \
		-questions-file $(EVAL)/questions.txt -output $(EVAL)/naive.jsonl -threads 2
	@echo
	$(BIN) eval --gold $(EVAL)/gold.jsonl "qa-shard=$(EVAL)/qa-shard.jsonl" \
		$(if $(EVAL_INT8_MODEL),"qa-shard int8=$(EVAL)/qa-shard-int8.jsonl") "naive 512=$(EVAL)/naive.jsonl"
