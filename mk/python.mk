# The Python package (python/, importable as qa_shard): its tests, with the
# standard library's unittest, against build/bin/qa-shard and the demo
# model, installing it offline into fresh virtual environments too. `make
# test` depends on this target. Without $(PYTHON) they are skipped with one
# line, except under CI=true, where that fails.
PYTHON ?= python3
.PHONY: python-test
python-test: $(BIN) $(MODELS)/demo/model.onnx ort
	@if ! command -v $(PYTHON) >/dev/null 2>&1; then \
		if [ "$$CI" = true ]; then echo "python-test: $(PYTHON) not found (CI=true: the Python package must be tested)" >&2; exit 1; fi; \
		echo "python-test: skipped: $(PYTHON) not found (install Python 3.9 or newer, with its venv module, to test the Python package)"; exit 0; \
	fi; \
	echo "python-test: python/tests with $$($(PYTHON) --version)"; \
	QA_SHARD_BIN=$(abspath $(BIN)) QA_SHARD_TEST_MODEL=$(abspath $(MODELS)/demo) PYTHONPATH=python \
		$(PYTHON) -m unittest discover -s python/tests -t python
