# The generated Go files, each with a //go:generate line in
# tokenizer/generate.go naming its generator and its input. The inputs are
# sweeps of Hugging Face tokenizers (npm tokenizers@0.23.2) over every
# Unicode code point, written under build/ (70 and 500 MB, about a minute
# on 2 cores) and never committed. `make generate` rewrites the files;
# `git diff --exit-code` after it shows they are reproduced byte for byte.
#
# tokenizer/internal/chars/graphemes_table.go is generated from the Rust crate
# unicode-segmentation 1.13's src/tables.rs, which no npm package ships:
# set QA_SHARD_GCB_TABLES to that file (from `cargo vendor` or
# ~/.cargo/registry/src) to regenerate it too.
BERT_CODEPOINTS := $(BUILD)/bert-tokenizer/codepoints.tsv
NORM_CODEPOINTS := $(BUILD)/normcodepoints.tsv
TOKENIZER_NPM := $(FAMILY_DATA)/node_modules/.package-lock.json
GENERATE_RUN := hftables|normtables$(if $(QA_SHARD_GCB_TABLES),|gcbgen)

$(TOKENIZER_NPM): $(FAMILY_DATA)/package-lock.json
	cd $(FAMILY_DATA) && npm ci --silent

$(BERT_CODEPOINTS): $(TOKBENCH_BERT) $(FAMILY_DATA)/codepoints.mjs $(TOKENIZER_NPM)
	node $(FAMILY_DATA)/codepoints.mjs $(TOKBENCH_BERT) $@

$(NORM_CODEPOINTS): $(FAMILY_DATA)/normcodepoints.mjs $(FAMILY_DATA)/normprobes.json $(TOKENIZER_NPM)
	node $(FAMILY_DATA)/normcodepoints.mjs $@

.PHONY: generate
generate: $(BERT_CODEPOINTS) $(NORM_CODEPOINTS)
	$(GO) generate -run '$(GENERATE_RUN)' ./...
	@$(if $(QA_SHARD_GCB_TABLES),,echo "tokenizer/internal/chars/graphemes_table.go kept as committed (QA_SHARD_GCB_TABLES not set)")
