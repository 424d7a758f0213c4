# Retrain the demo model's weights (testmodel/demo/*.safetensors, committed)
# from scratch. Only this target needs Python: Debian's python3-torch
# (apt-get install python3-torch libopenblas0-pthread; OpenBLAS because the
# reference BLAS torch links by default is several times slower). Seeds are
# fixed: the corpus, the windows, the initialisation and the batch order.
# Then `make demo-model eval` rebuilds the ONNX model and measures it, and
# `go test ./testmodel` checks ONNX Runtime against PyTorch's logits.
PYTHON ?= python3
TRAIN := $(BUILD)/train
TRAIN_TOK := $(MODELS)/tiny/tokenizer.json
TRAIN_WINDOWS = $(GO) run ./tools/trainqa -tokenizer $(TRAIN_TOK)
TRAIN_RECIPE ?= --hidden 64 --layers 2 --heads 4 --intermediate 256 --lr 3e-3 --pos-scale 0.3 --seed 12 \
	--phase $(TRAIN)/w128.bin:1800:2048:0.3 --phase $(TRAIN)/w384.bin+$(TRAIN)/w512.bin:500:4096:0.4

.PHONY: train
train: $(MODELS)/tiny/model.onnx
	@mkdir -p $(TRAIN)
	$(GO) run ./tools/gencorpus -n 3000 -min-words 20 -max-words 1500 -seed 1001 \
		-out $(TRAIN)/docs.jsonl -gold $(TRAIN)/gold.jsonl -tokenizer $(TRAIN_TOK)
	$(GO) run ./tools/gencorpus -n 100 -min-words 100 -max-words 4000 -seed 1002 \
		-out $(TRAIN)/heldout.jsonl -gold $(TRAIN)/heldout-gold.jsonl -tokenizer $(TRAIN_TOK)
	$(TRAIN_WINDOWS) -corpus $(TRAIN)/docs.jsonl -gold $(TRAIN)/gold.jsonl -out $(TRAIN)/w128.bin -max-seq-len 128 -doc-stride 32
	$(TRAIN_WINDOWS) -corpus $(TRAIN)/docs.jsonl -gold $(TRAIN)/gold.jsonl -out $(TRAIN)/w384.bin
	$(TRAIN_WINDOWS) -corpus $(TRAIN)/docs.jsonl -gold $(TRAIN)/gold.jsonl -out $(TRAIN)/w512.bin -max-seq-len 512 -doc-stride 128
	$(TRAIN_WINDOWS) -corpus $(TRAIN)/heldout.jsonl -gold $(TRAIN)/heldout-gold.jsonl -out $(TRAIN)/heldout.bin
	time $(PYTHON) tools/trainqa/train.py $(TRAIN_RECIPE) --parity-windows $(TRAIN)/heldout.bin --out testmodel/demo
