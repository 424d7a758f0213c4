#!/usr/bin/env bash
# Start-up of a run from a checkpoint folder (make bench-checkpoint): for
# bert-base and bert-large sized BERT checkpoints (tools/genmodel
# -checkpoint, seeded weights, safetensors), the wall time from the
# command's start to the end of a run of one short document (start-up,
# model load, one batch: what a user waits before the first answer), and
# the process's peak RSS, for: a build of the graph alone (qa-shard
# export), a run whose graph is not cached yet (it builds it), a run from
# the cache, and a run from the ONNX export of the same model. Medians of
# REPS runs; the load average and the CPU's instruction set beside them.
#
#   scripts/bench-checkpoint.sh BIN ORT_LIB VOCAB_JSON WORK [REPS]
set -euo pipefail
bin=$1 ort=$2 vocab=$3 work=$4 reps=${5:-3}
mkdir -p "$work"
doc="$work/doc.jsonl"
echo '{"id": "d", "context": "Ada Lovelace founded the company in London in 1843, and it moved to Paris later."}' >"$doc"
# median of the numbers on standard input
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# measure LABEL CMD...: REPS runs; prints "seconds peak_MiB" medians
measure() {
	local label=$1 secs=() rss=()
	shift
	for _ in $(seq "$reps"); do
		[[ -n ${BEFORE:-} ]] && eval "$BEFORE"
		/usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || { cat "$work/stderr" >&2; exit 1; }
		read -r s m <"$work/time"
		secs+=("$s") rss+=("$m")
	done
	printf '%-34s %8.2f s %8.0f MiB\n' "$label" "$(printf '%s\n' "${secs[@]}" | median)" "$(( $(printf '%s\n' "${rss[@]}" | median) / 1024 ))"
}
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); $("$bin" version 2>/dev/null | grep "^cpu:")"
for preset in base large; do
	ck="$work/ck-$preset" onnx="$work/onnx-$preset"
	[[ -d $ck ]] || go run ./tools/genmodel -preset "$preset" -checkpoint -vocab "$vocab" -out "$ck" >/dev/null
	rm -rf "$onnx"
	"$bin" export --graph standard --model "$ck" --out "$onnx" >/dev/null 2>&1
	weights=$(( $(stat -c %s "$ck/model.safetensors") / 1048576 ))
	echo
	echo "bert-$preset checkpoint: $weights MiB of float32 weights (safetensors)"
	run=("$bin" --ort-lib "$ort" --devices cpu:1 --tune-cache none --max-batch-tokens 512 --progress-interval 1h
		--input "$doc" --question "Who founded the company?" --output "$work/answers.jsonl" --overwrite)
	BEFORE="rm -rf $work/out-$preset" measure "build the graph alone (export)" "$bin" export --graph standard --model "$ck" --out "$work/out-$preset"
	BEFORE="rm -rf $work/cache-$preset" measure "run, graph not cached (builds it)" "${run[@]}" --model "$ck" --model-cache "$work/cache-$preset"
	BEFORE="" measure "run, graph cached" "${run[@]}" --model "$ck" --model-cache "$work/cache-$preset"
	measure "run from the ONNX export" "${run[@]}" --model "$onnx"
done
echo
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
