#!/usr/bin/env bash
# The graphs of one checkpoint side by side on the CPU (make bench-graphs):
# for demo-sized (4 layers of 256), bert-base and bert-large BERT
# checkpoints (tools/genmodel -checkpoint, seeded weights), the standard
# graph (qa-shard export --graph standard: what optimum exports), the fused
# graph (qa-shard export: what runs on CUDA GPUs), and the graph ONNX
# Runtime's own transformer optimizer makes from the standard one
# (onnxruntime.transformers.optimizer, model_type bert, opt_level 99),
# timed by ONNX Runtime's Python package at the library's version, same
# shapes, same threads, interleaved. The load average and the CPU's
# instruction set beside them.
#
#   scripts/bench-graphs.sh BIN PYTHON VOCAB_JSON WORK [REPS]
set -euo pipefail
bin=$1 py=$2 vocab=$3 work=$4 reps=${5:-5}
threads=$(nproc)
mkdir -p "$work"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" version 2>/dev/null | grep "^cpu:"); ONNX Runtime $("$py" -c 'import onnxruntime; print(onnxruntime.__version__)'), $threads threads"
for preset in small base large; do
	ck="$work/ck-$preset"
	[[ -d $ck ]] || go run ./tools/genmodel -preset "$preset" -checkpoint -vocab "$vocab" -out "$ck" >/dev/null
	for g in standard fused; do
		[[ -f $work/$g-$preset/model.onnx ]] || "$bin" export --model "$ck" --out "$work/$g-$preset" --graph "$g" >/dev/null 2>&1
	done
	heads=$("$py" -c "import json; print(json.load(open('$ck/config.json'))['num_attention_heads'])")
	hidden=$("$py" -c "import json; print(json.load(open('$ck/config.json'))['hidden_size'])")
	mkdir -p "$work/ortopt-$preset"
	fusedops=$("$py" tools/benchgraphs/optimize.py "$work/standard-$preset/model.onnx" "$work/ortopt-$preset/model.onnx" "$heads" "$hidden" 2>/dev/null | tail -n1)
	name=$preset
	[[ $preset == small ]] && name="demo-sized (4 x 256)"
	for batch in 1 4; do
		echo
		echo "$name, $batch x 384 tokens, $threads threads, median of $reps:"
		"$py" tools/benchgraphs/bench.py "$batch" 384 "$threads" "$reps" \
			"standard (export)=$work/standard-$preset/model.onnx" \
			"fused (qa-shard)=$work/fused-$preset/model.onnx" \
			"ORT optimizer ($fusedops)=$work/ortopt-$preset/model.onnx"
	done
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
