# The reference suite: qa-shard's graphs built from checkpoints against
# transformers' own torch classes and its QuestionAnsweringPipeline
# (4.57.x). make deps-reference installs transformers and torch (with the
# CUDA packages its Linux wheel pulls, about 3 GB, 2 minutes here) into
# build/reference-venv; make deps-dev runs it too; make test never does.
#
# make test-reference
#   1. tools/reference/logits.py: random-init models of every family made
#      by transformers' classes, saved as safetensors and as
#      pytorch_model.bin; qagraph's TestAgainstTransformers builds each and
#      compares its start/end logits with torch's (1e-4).
#   2. tools/refcheckpoints writes qa-shard's seeded checkpoint of every
#      family (testmodel.Checkpoints); tools/reference/answers.py loads each
#      into transformers (every tensor must be found under its own name and
#      shape), asks the golden corpus through the real pipeline and keeps
#      the logits of every window; TestCheckpointAnswersEqualTransformers
#      runs qa-shard on the same folders and compares answers (text and
#      offsets exactly, scores 1e-4) and every window's logits (1e-4), and
#      TestReferenceGoldensCurrent holds the committed goldens
#      (cmd/qa-shard/testdata/reference, which make test compares with) to
#      the fresh ones.
# make test-python-reference: the Python package's pipeline against
#   transformers' own, every call form, on the same checkpoints.
# make reference-goldens rewrites the committed goldens from a fresh run.

REFERENCE_VENV := $(BUILD)/reference-venv
REFERENCE_PY := $(REFERENCE_VENV)/bin/python
REFERENCE_OUT := $(BUILD)/reference
REFERENCE_QUESTIONS := "Who founded the company?" "Where is the headquarters?"

.PHONY: deps-reference test-reference reference-goldens
deps-reference: $(REFERENCE_VENV)/.installed

$(REFERENCE_VENV)/.installed: tools/reference/requirements.txt
	python3 -m venv $(REFERENCE_VENV)
	$(REFERENCE_PY) -m pip install --quiet --disable-pip-version-check -r tools/reference/requirements.txt
	touch $@

# reference-run: the fresh reference, under build/reference.
.PHONY: reference-run
reference-run: deps-reference ort $(VOCAB_JSON) $(TOKENIZER_FIXTURES)
	rm -rf $(REFERENCE_OUT) && mkdir -p $(REFERENCE_OUT)
	$(REFERENCE_PY) tools/reference/logits.py $(REFERENCE_OUT)/models
	$(GO) run ./tools/refcheckpoints -out $(REFERENCE_OUT)/checkpoints -tokenizers $(TOKENIZERS) -vocab $(VOCAB_JSON)
	$(REFERENCE_PY) tools/reference/answers.py $(REFERENCE_OUT)/checkpoints cmd/qa-shard/testdata/golden-docs.jsonl \
		$(REFERENCE_OUT)/answers $(REFERENCE_OUT)/logits $(REFERENCE_QUESTIONS)

test-reference: reference-run
	$(TEST_ENV) QA_SHARD_REFERENCE_DIR=$(abspath $(REFERENCE_OUT)/models) QA_SHARD_REFERENCE_ANSWERS=$(abspath $(REFERENCE_OUT)/answers) \
		QA_SHARD_REFERENCE_LOGITS=$(abspath $(REFERENCE_OUT)/logits) \
		$(GO) test -tags $(GO_TEST_TAGS) -count=1 -v -run 'TestAgainstTransformers|TestCheckpointAnswersEqualTransformers|TestReferenceGoldensCurrent' \
		./internal/qagraph ./cmd/qa-shard

# test-python-reference: the Python package against transformers' own
# QuestionAnsweringPipeline (python/tests/test_transformers.py, with pytest
# in the reference venv) on the seeded checkpoint of every family, and on
# the Japanese demo model over fugashi and pip's ipadic (its vocabulary
# from ../shared/real-tokenizers, as make demo-ja's).
.PHONY: test-python-reference
test-python-reference: reference-run $(BIN) $(MODELS)/demo-ja/model.onnx
	mkdir -p $(REFERENCE_OUT)/ja
	$(GO) run ./tools/gencorpus -lang ja -n 40 -min-words 20 -max-words 600 -seed 4242 -out $(REFERENCE_OUT)/ja/docs.jsonl \
		-gold $(REFERENCE_OUT)/ja/gold.jsonl -tokenizer $(MODELS)/demo-ja -questions-out $(REFERENCE_OUT)/ja/questions.txt
	QA_SHARD_BIN=$(abspath $(BIN)) QA_SHARD_REFERENCE_CHECKPOINTS=$(abspath $(REFERENCE_OUT)/checkpoints) PYTHONPATH=python \
		QA_SHARD_REFERENCE_JA=$(abspath $(REFERENCE_OUT)/ja) QA_SHARD_REFERENCE_JA_MODEL=$(abspath $(MODELS)/demo-ja) \
		$(REFERENCE_PY) -m pytest -q -p no:cacheprovider --disable-warnings python/tests/test_transformers.py

reference-goldens: reference-run
	cp $(REFERENCE_OUT)/answers/*.jsonl cmd/qa-shard/testdata/reference/

# The weight files internal/checkpoint's tests read, written by torch and
# the safetensors library (committed; rewrite them with this).
.PHONY: checkpoint-fixtures
checkpoint-fixtures: deps-reference
	$(REFERENCE_PY) tools/reference/fixtures.py internal/checkpoint/testdata
