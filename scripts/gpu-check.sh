#!/usr/bin/env bash
# gpu-check.sh [RESULTS_DIR]: checks qa-shard on a machine with NVIDIA GPUs,
# in under 8 minutes, and writes everything into RESULTS_DIR (default
# ./gpu-check-results):
#   1. builds (make build), unless QA_SHARD_BIN names a prebuilt binary;
#   2. qa-shard devices (table and --json) against nvidia-smi's index, UUID
#      and PCI bus id (NVML "00000000:3B:00.0" and the legacy "0000:3b:00.0"
#      compare equal);
#   3. the telemetry sampler and Xid watcher for a few seconds;
#   4. when QA_SHARD_ORT_LIB is a GPU build of ONNX Runtime (the CUDA
#      provider library beside it), qa-shard bench --devices all on the
#      generated base model, with nvidia-smi recording utilization.
# Exit status: 0 all checks passed, 1 a check failed, 2 no NVIDIA driver.
set -uo pipefail

OUT=${1:-./gpu-check-results}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
cd "$(dirname "$0")/.." || exit 1
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
failed=0

note() { echo "gpu-check: $*" | tee -a "$SUMMARY"; }
fail() { note "FAIL: $*"; failed=1; }
finish() {
	note "results in $OUT"
	[ "$failed" = 0 ] && note "all checks passed" || note "some checks FAILED"
	exit "$failed"
}

note "started $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname)"

# 1. Build.
BIN=${QA_SHARD_BIN:-build/bin/qa-shard}
if [ -z "${QA_SHARD_BIN:-}" ]; then
	if ! timeout 240 make build >"$OUT/build.log" 2>&1; then
		fail "make build (see build.log)"
		finish
	fi
	note "built $BIN"
else
	note "using prebuilt QA_SHARD_BIN=$BIN"
fi

# 2. Discovery. No driver is a clear, non-zero answer, not a crash.
timeout 30 "$BIN" devices >"$OUT/devices.txt" 2>&1
rc=$?
if grep -q "no NVIDIA driver found" "$OUT/devices.txt"; then
	note "no NVIDIA driver on this machine (NVML could not be loaded): nothing to check on a GPU"
	note "qa-shard devices said: $(head -n 1 "$OUT/devices.txt")"
	exit 2
fi
if grep -q 'unexpected argument "devices"' "$OUT/devices.txt"; then
	fail "this qa-shard has no devices subcommand (main.go must route \"devices\" to devicesCmd)"
	finish
fi
if [ "$rc" != 0 ]; then
	fail "qa-shard devices exited $rc (see devices.txt)"
	finish
fi
timeout 30 "$BIN" devices --json >"$OUT/devices.json" 2>"$OUT/devices-json.err" || fail "qa-shard devices --json"
cat "$OUT/devices.txt"

if command -v nvidia-smi >/dev/null 2>&1; then
	timeout 30 nvidia-smi -L >"$OUT/nvidia-smi-L.txt" 2>&1
	timeout 30 nvidia-smi >"$OUT/nvidia-smi.txt" 2>&1
	if timeout 30 nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader >"$OUT/nvidia-smi.csv" 2>"$OUT/nvidia-smi.err"; then
		if timeout 30 "$BIN" devices --compare-smi "$OUT/nvidia-smi.csv" >"$OUT/compare.txt" 2>&1; then
			note "devices match nvidia-smi (index, UUID, bus id): $(grep -c '^ok' "$OUT/compare.txt") GPU(s)"
		else
			fail "devices differ from nvidia-smi (see compare.txt)"
		fi
		cat "$OUT/compare.txt"
	else
		fail "nvidia-smi --query-gpu failed (see nvidia-smi.err)"
	fi
else
	fail "nvidia-smi not found: cannot compare numbering"
fi

# 3. Sampler and health watcher, five one-second samples.
if timeout 60 "$BIN" devices --sample 5s --sample-interval 1s >"$OUT/sample.txt" 2>"$OUT/sample.log"; then
	note "sampler: $(grep -c ' sample ' "$OUT/sample.txt") samples; summary:"
	sed -n '/^summary:/,$p' "$OUT/sample.txt" | tee -a "$SUMMARY"
	grep -h "metric unavailable\|Xid events\|GPU unhealthy\|health:" "$OUT/sample.txt" "$OUT/sample.log" | sort -u | head -n 20 | tee -a "$SUMMARY"
else
	fail "qa-shard devices --sample (see sample.txt, sample.log)"
fi

# 4. Benchmark on the GPU, only with a GPU build of ONNX Runtime.
ORT=${QA_SHARD_ORT_LIB:-}
if [ -z "$ORT" ] || [ ! -e "$ORT" ]; then
	note "bench skipped: QA_SHARD_ORT_LIB does not name an ONNX Runtime library"
elif [ ! -e "$(dirname "$ORT")/libonnxruntime_providers_cuda.so" ]; then
	note "bench skipped: $ORT has no libonnxruntime_providers_cuda.so beside it (a CPU build)"
else
	if ! timeout 180 make build/models/base/model.onnx >"$OUT/model.log" 2>&1; then
		fail "generating the base model (see model.log)"
		finish
	fi
	timeout 30 go run ./tools/gencorpus -n 200 -min-words 20 -max-words 3000 -seed 2 -out "$OUT/bench-corpus.jsonl" >"$OUT/corpus.log" 2>&1 ||
		{ fail "generating the corpus (see corpus.log)"; finish; }
	nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv,noheader,nounits -l 1 >"$OUT/bench-util.csv" 2>/dev/null &
	smi=$!
	timeout 200 "$BIN" bench --model build/models/base --input "$OUT/bench-corpus.jsonl" --devices all --ort-lib "$ORT" \
		>"$OUT/bench.txt" 2>"$OUT/bench.log"
	rc=$?
	kill "$smi" 2>/dev/null
	wait "$smi" 2>/dev/null
	if [ "$rc" = 0 ]; then
		note "bench: $(grep -m1 'end-to-end windows/s' "$OUT/bench.txt")"
		note "bench: $(grep -m1 'raw model windows/s' "$OUT/bench.txt")"
		awk -F', *' '{n[$1]++; u[$1]+=$2; if ($3>m[$1]) m[$1]=$3}
			END {for (g in n) printf "gpu-check: bench GPU %s: mean utilization %.1f%% over %d s, peak memory %d MiB\n", g, u[g]/n[g], n[g], m[g]}' \
			"$OUT/bench-util.csv" | sort | tee -a "$SUMMARY"
	else
		fail "qa-shard bench exited $rc (see bench.txt, bench.log)"
	fi
fi
finish
