#!/usr/bin/env bash
# The GPU build of ONNX Runtime on a machine without a GPU (make
# ort-gpu-check, through make gpu-check-cpu in CI):
#
#   scripts/ort-gpu-check.sh DIR CPU_LIB MODEL DOCS VERSION
#
# DIR/prefix holds `make install-gpu`'s layout. Checks that the installed
# binary finds the GPU build beside it with no flag (also through a
# symbolic link), that `version` and `devices` name it, its version and its
# CUDA and TensorRT providers (and, where CUDA 13 is not installed, the
# CUDA libraries they lack), and that a run on its CPU provider answers
# DOCS as the CPU build CPU_LIB does (same answers and offsets; scores and
# span_logit/null_logit may differ in the last digits between ONNX Runtime
# versions).
set -euo pipefail
[[ $# -eq 5 ]] || { echo "usage: $0 DIR CPU_LIB MODEL DOCS VERSION" >&2; exit 2; }
dir=$1 cpu_lib=$2 model=$3 docs=$4 want=$5
unset QA_SHARD_ORT_LIB
prefix=$(cd "$dir/prefix" && pwd)
bin=$prefix/bin/qa-shard
lib=$prefix/lib/qa-shard/libonnxruntime.so.1
fails=0
check() { # check WHAT COMMAND...: runs COMMAND, counts and reports a failure
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what" >&2; fails=$((fails + 1)); fi
}

v=$("$bin" version)
echo "$v"
check "version finds the GPU build beside the binary with no flag" \
	grep -qF "onnxruntime: $want, $lib (installed beside the binary" <<<"$v"
check "version names the CUDA and TensorRT providers" grep -qE '^providers: cpu, cuda .*, tensorrt ' <<<"$v"
ln -sf "$bin" "$dir/qa-shard-link"
check "a symbolic link to the binary finds the same library" grep -qF "$lib" <<<"$("$dir/qa-shard-link" version)"

d=$("$bin" devices)
echo "$d"
check "devices names the library and its providers" grep -qF "ONNX Runtime $want: $lib" <<<"$d"
if ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libcudart\.so\.13'; then
	check "without CUDA 13, devices names the CUDA runtime the cuda provider lacks" \
		grep -qE '^providers: cpu, cuda \(missing [^)]*libcudart\.so\.13' <<<"$d"
fi
quiet() { "$@" >/dev/null; }
check "devices --check passes where no GPU is selected" quiet "$bin" devices --check

run() { # run LIB OUT
	"$bin" --ort-lib "$1" --devices cpu:1 --threads 1 --model "$model" --input "$docs" \
		--question "Who founded the company?" --output "$2" --overwrite --log-level error
}
run "$lib" "$dir/gpu-build.jsonl"
run "$cpu_lib" "$dir/cpu-build.jsonl"
strip_scores() { sed -E 's/"(score|span_logit|null_logit)":[-0-9.eE+]+,?//g' "$1"; }
check "the GPU build's CPU provider answers as the CPU build ($(wc -l <"$dir/cpu-build.jsonl") records)" \
	cmp -s <(strip_scores "$dir/gpu-build.jsonl") <(strip_scores "$dir/cpu-build.jsonl")

echo "ort-gpu-check: $fails failed"
((fails == 0))
