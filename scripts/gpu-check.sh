#!/usr/bin/env bash
# gpu-check.sh [--cpu-only] [RESULTS_DIR]: checks qa-shard on a machine with
# an NVIDIA GPU, offline, from the unpacked GPU kit (make gpu-kit; then
# scripts/gpu-kit-unpack.sh). It needs no make, npm, Go or network: the
# kit's bin/ (qa-shard and the model and corpus generators), ort/ (ONNX
# Runtime's GPU build) and vocab/, plus python3 for the comparisons. Steps,
# in the order they run, one row each in the table it prints at the end:
#   f  libraries: glibc, the driver, the CUDA 13 libraries the providers
#      need (searched on the system path, then in python3's nvidia wheels,
#      and added to LD_LIBRARY_PATH); stops at once when one is missing
#   a  qa-shard devices against nvidia-smi: index, UUID, bus id, memory
#   c  the tiny and base generated models answered on --devices 0 (CUDA)
#      and --devices cpu: the same answers, scores within 1e-3
#   b  the sampler's readings during a run (qa-shard's own, during d)
#   d  throughput of the base model at several --max-batch-tokens, with
#      nvidia-smi dmon; then an fp16 attention-fused copy made with ONNX
#      Runtime's transformer optimizer, when python3 has it; then qa-shard's
#      own standard fp32, fused fp32 and fused fp16 graphs of a checkpoint
#      of the same size (qa-shard export), at the largest budget
#   e  the same weights in PyTorch (transformers' BertForQuestionAnswering,
#      SDPA attention), fp32 and fp16, at the batch shapes of d
# --cpu-only runs every step that needs no GPU, with CPU stand-ins where
# the step compares (c: cpu:1 against cpu:2 at another batch budget; d: the
# tiny model on the CPU) and says so in the table. Exit status: 0 when no
# check failed, 1 otherwise ("unavailable" is not a failure).
set -uo pipefail

CPU_ONLY=0
OUT_ARG=
for a in "$@"; do
	case $a in
	--cpu-only) CPU_ONLY=1 ;;
	-h | --help) sed -n '2,27p' "$0"; exit 0 ;;
	*) OUT_ARG=$a ;;
	esac
done
KIT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$KIT/bin/qa-shard
ORT=$KIT/ort/libonnxruntime.so.1
VOCAB=$KIT/vocab/vocab.json
HELPERS=$KIT/scripts/gpu-check
OUT=${OUT_ARG:-$PWD/gpu-check-results}
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd)
MODE=gpu
[ "$CPU_ONLY" = 1 ] && MODE=cpu-only
QUESTIONS=(--question "Who founded the company?" --question "Where is the headquarters?")
ROWS=()
FAILED=0

row() { # STEP CHECK RESULT DETAIL
	ROWS+=("| $1 | $2 | $3 | $4 |")
	echo "gpu-check: [$1] $2: $3: $4" >&2
	[ "$3" = FAIL ] && FAILED=$((FAILED + 1))
	return 0
}
finish() {
	{
		echo
		echo "gpu-check ($MODE), $(date -u +%Y-%m-%dT%H:%M:%SZ); $(sed -n 's/^kit=//p' "$KIT/KIT" 2>/dev/null)"
		echo "| step | check | result | detail |"
		echo "|---|---|---|---|"
		printf '%s\n' "${ROWS[@]}"
		echo "load average (1, 5, 15 min): $(cut -d' ' -f1-3 /proc/loadavg)"
		echo "$FAILED check(s) failed; files in $OUT"
	} | tee "$OUT/table.md"
	[ "$FAILED" = 0 ] && exit 0
	exit 1
}
qa() { "$BIN" --ort-lib "$ORT" --log-format json --progress-interval 1h "$@"; }
# field LABEL FILE: the value of a "| LABEL ... | value |" row of bench's table.
field() { awk -F'|' -v l="$1" 'index($2, l) == 2 {gsub(/ /, "", $3); print $3; exit}' "$2"; }

# f. Libraries, first: a missing one stops the check in seconds.
missing=()
for f in "$BIN" "$KIT/bin/genmodel" "$KIT/bin/gencorpus" "$ORT" "$VOCAB" "$HELPERS/compare_answers.py"; do
	[ -e "$f" ] || missing+=("${f#"$KIT"/}")
done
[ "${#missing[@]}" = 0 ] || { row f "kit files" FAIL "missing from $KIT: ${missing[*]}"; finish; }
command -v python3 >/dev/null || { row f libraries FAIL "python3 not found (the comparisons need it)"; finish; }
need_glibc=$(sed -n 's/^glibc_required=//p' "$KIT/KIT")
have_glibc=$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{print $2}')
if [ -n "$need_glibc" ] && [ "$(printf '%s\n%s\n' "$need_glibc" "$have_glibc" | sort -V | head -n 1)" != "$need_glibc" ]; then
	row f libraries FAIL "glibc $have_glibc is older than the $need_glibc the kit's binaries need"
	finish
fi
glibc_note="glibc $have_glibc >= ${need_glibc:-?}"
if [ "$CPU_ONLY" = 1 ]; then
	row f libraries PASS "$glibc_note; CUDA libraries not needed (--cpu-only)"
else
	if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >"$OUT/nvidia-smi-L.txt" 2>&1; then
		row f libraries FAIL "nvidia-smi is missing or fails (no NVIDIA driver loaded?): see nvidia-smi-L.txt"
		finish
	fi
	for p in libonnxruntime_providers_shared.so libonnxruntime_providers_cuda.so; do
		[ -e "$KIT/ort/$p" ] || { row f libraries FAIL "$p is missing from $KIT/ort: a CPU kit?"; finish; }
	done
	sites=$(python3 -c 'import site; print("\n".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null)
	found_dirs=() notes=() declare -A where_libs
	for lib in libcudart.so.13 libcublas.so.13 libcublasLt.so.13 libcurand.so.10 libcudnn.so.9; do
		if ldconfig -p 2>/dev/null | grep -q "[[:space:]]$lib "; then
			where_libs[system path]+=" $lib"
			continue
		fi
		hit=
		while read -r sp; do
			[ -d "$sp/nvidia" ] || continue
			hit=$(find "$sp/nvidia" -name "$lib" -print -quit 2>/dev/null)
			[ -n "$hit" ] && break
		done <<<"$sites"
		if [ -n "$hit" ]; then
			found_dirs+=("$(dirname "$hit")")
			where_libs[${hit%/*}]+=" $lib"
		elif [ "$lib" = libcudnn.so.9 ]; then
			notes+=("$lib: not found (only TensorRT needs it)")
		fi
	done
	if [ "${#found_dirs[@]}" -gt 0 ]; then
		LD_LIBRARY_PATH=$(printf '%s\n' "${found_dirs[@]}" | sort -u | paste -sd:)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		export LD_LIBRARY_PATH
	fi
	ldd "$KIT/ort/libonnxruntime_providers_cuda.so" >"$OUT/ldd-cuda.txt" 2>&1
	if grep -q "not found" "$OUT/ldd-cuda.txt"; then
		row f libraries FAIL "the CUDA provider cannot load: $(grep 'not found' "$OUT/ldd-cuda.txt" | awk '{print $1}' | paste -sd' '); searched the system path and python3's site-packages/nvidia"
		finish
	fi
	for d in "${!where_libs[@]}"; do notes+=("${where_libs[$d]# } from $d"); done
	driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
	row f libraries PASS "$glibc_note; driver $driver; $(printf '%s; ' "${notes[@]}")the CUDA provider's dependencies resolve"
fi

# a. Discovery against nvidia-smi.
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
	if nvidia-smi --query-gpu=index,uuid,pci.bus_id,memory.total --format=csv,noheader,nounits >"$OUT/nvidia-smi.csv" 2>"$OUT/nvidia-smi.err" &&
		"$BIN" devices --compare-smi "$OUT/nvidia-smi.csv" >"$OUT/compare.txt" 2>&1; then
		row a "devices vs nvidia-smi" PASS "$(grep -c '^ok' "$OUT/compare.txt") GPU(s) agree in index, UUID, bus id and memory"
	else
		row a "devices vs nvidia-smi" FAIL "$(head -q -n 3 "$OUT/compare.txt" "$OUT/nvidia-smi.err" | paste -sd' ')"
	fi
	"$BIN" devices >"$OUT/devices.txt" 2>&1
elif "$BIN" devices >"$OUT/devices.txt" 2>&1 && grep -q "no NVIDIA driver found" "$OUT/devices.txt"; then
	row a "devices vs nvidia-smi" "SKIP (no GPU)" "qa-shard devices reports no driver cleanly; the comparison is unit-tested on go-nvml's mock"
else
	row a "devices vs nvidia-smi" FAIL "qa-shard devices: $(head -n 2 "$OUT/devices.txt" | paste -sd' ')"
fi

# Models and corpora, generated here (the base model is ~440 MB).
mkdir -p "$OUT/models"
for m in tiny base; do
	if ! "$KIT/bin/genmodel" -preset "$m" -vocab "$VOCAB" -out "$OUT/models/$m" >"$OUT/genmodel-$m.log" 2>&1; then
		row c "generate the $m model" FAIL "see genmodel-$m.log"
		finish
	fi
done
if [ "$CPU_ONLY" = 1 ]; then
	corpus_c=(-n 12 -min-words 20 -max-words 800) corpus_d=(-n 6 -min-words 400 -max-words 800)
	budgets=(2048 8192) model_d=tiny dev_a=(--devices cpu:1 --max-batch-tokens 4096) dev_b=(--devices cpu:2 --max-batch-tokens 1024)
	c_label="cpu:1 vs cpu:2 at another batch budget (stand-in for GPU vs CPU)"
else
	corpus_c=(-n 40 -min-words 20 -max-words 2500) corpus_d=(-n 300 -min-words 1500 -max-words 4000)
	budgets=(8192 16384 32768 65536) model_d=base dev_a=(--devices 0) dev_b=(--devices cpu)
	c_label="--devices 0 (CUDA) vs --devices cpu"
fi
"$KIT/bin/gencorpus" "${corpus_c[@]}" -seed 3 -out "$OUT/corpus-c.jsonl" >/dev/null 2>&1 &&
	"$KIT/bin/gencorpus" "${corpus_d[@]}" -seed 4 -out "$OUT/corpus-d.jsonl" >/dev/null 2>&1 ||
	{ row c "generate the corpora" FAIL "gencorpus failed"; finish; }

# c. The same answers on the GPU and on the CPU.
for m in tiny base; do
	ok=1
	for side in a b; do
		if [ "$side" = a ]; then dev=("${dev_a[@]}"); else dev=("${dev_b[@]}"); fi
		qa "${dev[@]}" --model "$OUT/models/$m" --input "$OUT/corpus-c.jsonl" "${QUESTIONS[@]}" \
			--output "$OUT/c-$m-$side.jsonl" --overwrite 2>"$OUT/c-$m-$side.log"
		rc=$?
		if [ "$rc" != 0 ]; then
			row c "$m: $c_label" FAIL "the ${dev[*]} run exited $rc: $(grep -m1 -o '"error":"[^"]*"' "$OUT/c-$m-$side.log" || tail -n 1 "$OUT/c-$m-$side.log")"
			ok=0
			break
		fi
	done
	[ "$ok" = 1 ] || continue
	where=
	if [ "$CPU_ONLY" = 0 ]; then
		if ! grep -q '"provider":"cuda"' "$OUT/c-$m-a.log"; then
			row c "$m: $c_label" FAIL "the --devices 0 run has no replica on the CUDA provider (see c-$m-a.log)"
			continue
		fi
		where="; $(grep -m1 -o '"msg":"[^"]*\(GPU provider\|CPU, by design\)[^"]*"' "$OUT/c-$m-a.log" | cut -d'"' -f4)"
	fi
	if cmp=$(python3 "$HELPERS/compare_answers.py" "$OUT/c-$m-a.jsonl" "$OUT/c-$m-b.jsonl" --tol 1e-3); then
		row c "$m: $c_label" PASS "$cmp$where"
	else
		row c "$m: $c_label" FAIL "$cmp"
	fi
done

# d (and b). Throughput at several batch budgets, nvidia-smi dmon beside.
dmon_summary() { # FILE: mean SM %, peak framebuffer MiB
	awk '/^# *gpu/ {for (i = 2; i <= NF; i++) col[$i] = i; next} /^#/ {next}
		col["sm"] && $(col["sm"]-1) ~ /^[0-9]+$/ {n++; sm += $(col["sm"]-1); if ($(col["fb"]-1) > fb) fb = $(col["fb"]-1)}
		END {if (n) printf "GPU busy %.0f%% (mean SM, %d s), memory peak %d MiB", sm / n, n, fb; else printf "no dmon samples"}' "$1"
}
declare -A raw_by_rows # fp32 raw model windows/s by the rows of a full-length batch
bench_one() { # LABEL MODEL_DIR BUDGET
	local label=$1 dir=$2 b=$3 dmon=
	local dev=(--devices cpu)
	[ "$CPU_ONLY" = 0 ] && dev=(--devices 0)
	if [ "$CPU_ONLY" = 0 ]; then
		nvidia-smi dmon -s um -d 1 >"$OUT/dmon-$label-$b.txt" 2>&1 &
		dmon=$!
	fi
	"$BIN" bench --ort-lib "$ORT" --model "$dir" --input "$OUT/corpus-d.jsonl" "${dev[@]}" --max-batch-tokens "$b" --naive-docs 1 \
		>"$OUT/bench-$label-$b.txt" 2>"$OUT/bench-$label-$b.log"
	local rc=$?
	[ -n "$dmon" ] && { kill "$dmon" 2>/dev/null; wait "$dmon" 2>/dev/null; }
	if [ "$rc" != 0 ]; then
		row d "$label, --max-batch-tokens $b" FAIL "qa-shard bench exited $rc (see bench-$label-$b.log)"
		return 1
	fi
	local e2e raw rows
	e2e=$(field "end-to-end windows/s" "$OUT/bench-$label-$b.txt")
	raw=$(field "raw model windows/s" "$OUT/bench-$label-$b.txt")
	rows=$(field "batches / mean rows" "$OUT/bench-$label-$b.txt")
	[ "$label" = "$model_d-fp32" ] && raw_by_rows[$((b / 384))]=$raw
	local gpu="CPU stand-in"
	[ -n "$dmon" ] && gpu=$(dmon_summary "$OUT/dmon-$label-$b.txt")
	row d "$label, --max-batch-tokens $b" MEASURED "$e2e windows/s end-to-end, $raw raw model; batches / mean rows $rows; $gpu"
}
first=1
for b in "${budgets[@]}"; do
	bench_one "$model_d-fp32" "$OUT/models/$model_d" "$b" || continue
	if [ "$first" = 1 ]; then
		first=0
		if [ "$CPU_ONLY" = 1 ]; then
			row b "sampler during a run" "SKIP (no GPU)" "unit-tested on go-nvml's mock (gpu/sampler_test.go)"
		else
			s=$(grep -m1 -o 'gpu[0-9]* GPU-[^ ]*: [0-9]* samples, .*' "$OUT/bench-$model_d-fp32-$b.log")
			n=$(sed -n 's/.*: \([0-9]*\) samples.*/\1/p' <<<"$s")
			if [ -n "$s" ] && [ "${n:-0}" -ge 2 ] && ! grep -q 'mean utilization -' <<<"$s"; then
				row b "sampler during a run" PASS "$s"
			else
				row b "sampler during a run" FAIL "qa-shard's GPU summary: ${s:-none in bench-$model_d-fp32-$b.log}"
			fi
		fi
	fi
done

[ "$first" = 1 ] && row b "sampler during a run" FAIL "not read: no run of d succeeded"

# d. The fp16, attention-fused copy users bring from optimum's O4 export.
if python3 -c 'import onnxruntime.transformers.optimizer' >/dev/null 2>&1; then
	f16=$OUT/models/base-fp16-fused
	mkdir -p "$f16" && cp "$OUT/models/base/tokenizer.json" "$OUT/models/base/config.json" "$f16/"
	if python3 -m onnxruntime.transformers.optimizer --input "$OUT/models/base/model.onnx" --output "$f16/model.onnx" \
		--model_type bert --num_heads 12 --hidden_size 768 --float16 $([ "$CPU_ONLY" = 0 ] && echo --use_gpu) >"$OUT/optimizer.log" 2>&1; then
		bench_one "base-fp16-fused" "$f16" "${budgets[-1]}"
	else
		row d "fp16 attention-fused copy" FAIL "the optimizer failed: $(tail -n 1 "$OUT/optimizer.log")"
	fi
else
	row d "fp16 attention-fused copy" UNAVAILABLE "python3 has no onnxruntime package, whose transformers.optimizer makes the copy; the kit cannot carry it (no registry it is built from ships that package)"
fi

# d. qa-shard's own graphs of a checkpoint of the same size: standard fp32
# (what a CPU run builds), fused fp32 and fused fp16 (what --graph auto and
# --precision fp16 build for CUDA), each exported by qa-shard itself.
ck=$OUT/models/$model_d-checkpoint
if "$KIT/bin/genmodel" -preset "$model_d" -checkpoint -vocab "$VOCAB" -out "$ck" >"$OUT/genmodel-checkpoint.log" 2>&1; then
	for g in "standard fp32" "fused fp32" "fused fp16"; do
		read -r graph precision <<<"$g"
		dir=$OUT/models/$model_d-$graph-$precision
		rm -rf "$dir" # an earlier run's export: qa-shard export refuses a folder that is not empty
		if "$BIN" export --model "$ck" --out "$dir" --graph "$graph" --precision "$precision" >"$OUT/export-$graph-$precision.log" 2>&1; then
			bench_one "$model_d-$graph-$precision (qa-shard export)" "$dir" "${budgets[-1]}"
		else
			row d "$model_d $graph $precision graph" FAIL "qa-shard export failed: $(tail -n 1 "$OUT/export-$graph-$precision.log" | cut -c1-200)"
		fi
	done
else
	row d "qa-shard's fused graphs" FAIL "genmodel -checkpoint failed (see genmodel-checkpoint.log)"
fi

# e. The same weights in PyTorch at the batch shapes of d.
shapes=()
for b in "${budgets[@]}"; do shapes+=("$((b / 384))x384"); done
tdev=cuda
if [ "$CPU_ONLY" = 1 ]; then tdev=cpu shapes=("$((budgets[0] / 384))x384"); fi
python3 "$HELPERS/torch_reference.py" --model "$OUT/models/$model_d" --shapes "$(IFS=,; echo "${shapes[*]}")" \
	--device "$tdev" --seconds 2 >"$OUT/torch.jsonl" 2>"$OUT/torch.log"
rc=$?
if [ "$rc" = 3 ]; then
	row e "PyTorch BertForQuestionAnswering" UNAVAILABLE "$(python3 -c 'import json,sys; print(json.loads(sys.stdin.readline())["unavailable"])' <"$OUT/torch.jsonl")"
elif [ "$rc" != 0 ]; then
	row e "PyTorch BertForQuestionAnswering" FAIL "exit $rc: $(tail -n 1 "$OUT/torch.jsonl" "$OUT/torch.log" | paste -sd' ' | cut -c1-300)"
else
	while read -r line; do
		read -r dtype rows len rate diff attn < <(python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["dtype"], r["rows"], r["len"], r["windows_per_s"], r.get("max_abs_diff_vs_fp32","-"), r.get("attn","-"))' "$line")
		ours=${raw_by_rows[$rows]:-?}
		row e "PyTorch $dtype ($attn attention), batch ${rows}x$len ($tdev)" MEASURED "$rate windows/s; qa-shard's raw model on the same sessions' batches (mostly ${rows}x384): $ours; fp16 vs fp32 logits max diff $diff"
	done <"$OUT/torch.jsonl"
fi
finish
