#!/usr/bin/env bash
# qa-shard on a real Slurm cluster: two slurmd "nodes" on this host
# (scripts/slurm/cluster.sh), Debian's slurm packages, run as root.
#
#   make slurm-test            # or: bash scripts/slurm/test.sh
#
# Scenarios (each prints PASS or FAIL with details; the last line is
# "N passed, M failed" and the exit status is non-zero on any failure):
#   1. reference: one process, tiny model, --devices cpu
#   2. srun -N2 -n4 qa-shard (ranks from SLURM_PROCID/SLURM_NTASKS), then
#      qa-shard merge: byte-identical to the reference
#   3. sbatch configs/slurm/single-node.sbatch with --time=1 and
#      --signal=B:USR1@50 on slow simulated replicas: USR1 before the limit,
#      checkpoint (exit 75), scontrol requeue, --resume, complete; the output
#      is byte-identical to an uninterrupted run with the same flags
#   4. sbatch configs/slurm/multi-node.sbatch on both nodes: ranks, then the
#      merge step in the job; byte-identical to the reference
#   5. sbatch configs/slurm/array.sbatch (3 shards) on the corpus with one
#      malformed line, and a merge job with --dependency=afterany: the task
#      owning the line exits 3 (an error record in its place), the merge
#      still runs and completes, byte-identical to one process's output
#   6. configs/slurm/submit refuses before anything queues: multi-node
#      without --output, an array with a model folder that does not exist,
#      and the CPU script over an --output no qa-shard run wrote each exit 2
#      with the message that says why, and the controller holds no new job
#   7. configs/slurm/submit configs/slurm/cpu.sbatch on both nodes (no GPU
#      asked for, --devices cpu added by the script): the check passes, the
#      job runs one rank a node and merges; byte-identical to the reference
#   8. cluster.sh stop: every daemon it started is gone, and no process is
#      left working in the scratch folder
# Waits are bounded polls of scontrol/squeue (accounting is off: no sacct).
# SLURM_TEST_KEEP=1 keeps the scratch folder (it is kept anyway on failure).
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
ROOT=$(pwd)
BIN=$ROOT/build/bin/qa-shard
MODEL=$ROOT/build/models/tiny
QUESTIONS=(--question "Who founded the company?" --question "Where is the headquarters?")
# Scenario 3: one question on 200 documents at this simulated speed takes
# about 50 s uninterrupted, longer than the latest USR1 can come (--time=1,
# @50: Slurm sends it 10 to 40 s after the start, checking every 30 s), so
# the first run is always interrupted.
SIM_DEVICES=${SLURM_TEST_SIM:-sim:1:rate=4000}

# Not inside someone's allocation: ranks must come from our srun only.
for v in $(compgen -e | grep '^SLURM_' || true); do unset "$v"; done

passed=0 failed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
note() { echo "[$(date '+%T')] $*"; }
indent() { sed 's/^/    /'; }

if [[ ${SLURM_TEST_SKIP_BUILD:-0} != 1 ]]; then
	note "building (make build demo-model ort)"
	make --no-print-directory build demo-model ort >/dev/null || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/qa-shard-slurm.XXXXXX")
CLUSTER=$WORK/cluster
cleanup() {
	local rc=$?
	if [[ -f $CLUSTER/pids ]]; then
		note "stopping the cluster"
		bash scripts/slurm/cluster.sh stop "$CLUSTER" 2>&1 | indent
	fi
	if [[ $failed -gt 0 || ${SLURM_TEST_KEEP:-0} == 1 ]]; then
		echo "scratch folder kept: $WORK"
	else
		rm -rf "$WORK"
	fi
	# The last line, which CI reads.
	echo "$passed passed, $failed failed"
	[[ $rc -ne 0 || $failed -gt 0 ]] && exit $((rc != 0 ? rc : 1))
	exit 0
}
trap cleanup EXIT
trap 'fail "interrupted by a signal"; exit 130' INT TERM

note "corpora"
go run ./tools/gencorpus -n 60 -min-words 20 -max-words 700 -seed 7 -out "$WORK/small.jsonl" || { fail "gencorpus"; exit 1; }
go run ./tools/gencorpus -n 200 -seed 3 -out "$WORK/slow.jsonl" || { fail "gencorpus"; exit 1; }

note "starting a two-node Slurm cluster in $CLUSTER"
if ! bash scripts/slurm/cluster.sh start "$CLUSTER"; then
	fail "cluster start (see the messages above)"
	exit 1
fi
export SLURM_CONF=$CLUSTER/slurm.conf
sinfo -N | indent

# job_field JOB FIELD: one field of `scontrol show job` (empty if unknown).
job_field() { scontrol -o show job "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n1; }

# wait_job JOB SECONDS: poll until the job reaches a final state; prints the
# states it went through to $WORK/job-JOB.states; returns 0 if COMPLETED.
wait_job() {
	local job=$1 deadline=$((SECONDS + $2)) st last=""
	while ((SECONDS < deadline)); do
		st=$(job_field "$job" JobState)
		if [[ $st != "$last" ]]; then
			echo "$(date '+%T') $st restarts=$(job_field "$job" Restarts)" >>"$WORK/job-$job.states"
			last=$st
		fi
		case $st in
		COMPLETED) return 0 ;;
		FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED | SPECIAL_EXIT | REQUEUE_HOLD) return 1 ;;
		esac
		sleep 2
	done
	echo "$(date '+%T') gave up waiting after $2 s (state $last); cancelling" >>"$WORK/job-$job.states"
	scancel "$job" 2>/dev/null
	return 1
}

# same A B WHAT: byte-identical files, else details.
same() {
	if cmp -s "$1" "$2"; then return 0; fi
	echo "    $3: $1 and $2 differ:"
	cmp "$1" "$2" 2>&1 | indent
	diff <(head -c 100000 "$1") <(head -c 100000 "$2") | head -n 6 | indent
	return 1
}

# ---------------------------------------------------------------- 1
note "scenario 1: single-process reference"
S1=$WORK/s1
mkdir -p "$S1"
if "$BIN" --devices cpu --threads 1 --model "$MODEL" --input "$WORK/small.jsonl" "${QUESTIONS[@]}" \
	--output "$S1/answers.jsonl" --log-format console >"$S1/run.log" 2>&1; then
	pass "1 reference run: $(wc -l <"$S1/answers.jsonl") records from $(wc -l <"$WORK/small.jsonl") documents"
else
	fail "1 reference run exited $?"
	tail -n 20 "$S1/run.log" | indent
fi

# ---------------------------------------------------------------- 2
note "scenario 2: srun -N2 -n4, then qa-shard merge"
S2=$WORK/s2
mkdir -p "$S2"
(
	cd "$S2" || exit 1
	srun -N2 -n4 --kill-on-bad-exit=0 bash -c 'echo "$SLURM_PROCID/$SLURM_NTASKS on $SLURMD_NODENAME"' | sort >nodes.txt
	srun -N2 -n4 --kill-on-bad-exit=0 "$BIN" --devices cpu --threads 1 --model "$MODEL" --input "$WORK/small.jsonl" \
		"${QUESTIONS[@]}" --output "$S2/answers.jsonl" --log-format console >srun.log 2>&1
)
rc=$?
shopt -s nullglob
ranks=("$S2"/answers.rank-*-of-00004.jsonl)
shopt -u nullglob
nodes=$(awk '{print $3}' "$S2/nodes.txt" | sort -u | tr '\n' ' ')
if [[ $rc -ne 0 ]]; then
	fail "2 srun exited $rc"
	tail -n 30 "$S2/srun.log" | indent
elif [[ ${#ranks[@]} -ne 4 ]]; then
	fail "2 expected 4 rank files, found ${#ranks[@]}: $(ls "$S2" | tr '\n' ' ')"
elif [[ $nodes != "n1 n2 " ]]; then
	fail "2 tasks did not spread over n1 and n2: $(tr '\n' ';' <"$S2/nodes.txt")"
elif ! "$BIN" merge --output "$S2/merged.jsonl" "${ranks[@]}" >"$S2/merge.log" 2>&1; then
	fail "2 qa-shard merge exited non-zero"
	tail -n 20 "$S2/merge.log" | indent
elif same "$S1/answers.jsonl" "$S2/merged.jsonl" "2 merged vs reference"; then
	pass "2 srun -N2 -n4 over nodes $nodes-> 4 rank files ($(wc -l "${ranks[@]}" | awk '$2 != "total" {printf "%s ", $1}')records) -> merge -> byte-identical to the reference"
else
	fail "2 merged output differs from the single-process run"
fi

# ---------------------------------------------------------------- 3
note "scenario 3: sbatch single-node.sbatch, USR1 before --time=1, requeue, resume"
S3=$WORK/s3
mkdir -p "$S3"
SIMARGS=(--devices "$SIM_DEVICES" --model "$MODEL" --input "$WORK/slow.jsonl" --question "Who founded the company?" --checkpoint-interval 2s --max-inflight-mb 1)
# The uninterrupted reference, with the same flags, runs meanwhile.
"$BIN" "${SIMARGS[@]}" --output "$S3/reference.jsonl" --log-format console >"$S3/reference.log" 2>&1 &
refpid=$!
job=$(QA_SHARD=$BIN sbatch --parsable --chdir="$S3" --output="$S3/job.log" --job-name=s3-requeue \
	--time=1 --signal=B:USR1@50 --gres=gpu:1 --cpus-per-task=1 \
	configs/slurm/single-node.sbatch "${SIMARGS[@]}" --output "$S3/answers.jsonl" --log-format console 2>"$S3/sbatch.err")
if [[ -z $job ]]; then
	fail "3 sbatch refused the job: $(cat "$S3/sbatch.err")"
	wait "$refpid"
else
	note "job $job submitted; polling (at most 300 s)"
	wait_job "$job" 300
	jrc=$?
	wait "$refpid"
	refrc=$?
	restarts=$(job_field "$job" Restarts)
	usr1=$(grep -c 'batch shell got SIGUSR1' "$S3/job.log")
	ex75=$(grep -c 'qa-shard exited 75' "$S3/job.log")
	starts=$(grep -c ' start (restart ' "$S3/job.log")
	details="job $job: final $(job_field "$job" JobState) exit $(job_field "$job" ExitCode), restarts=${restarts:-?}, USR1 received $usr1 time(s), exit 75 $ex75 time(s), starts $starts"
	if [[ $jrc -ne 0 || $refrc -ne 0 ]]; then
		fail "3 $details; reference exit $refrc"
		indent <"$WORK/job-$job.states"
		tail -n 40 "$S3/job.log" | indent
	elif [[ ${restarts:-0} -lt 1 || $usr1 -lt 1 || $ex75 -lt 1 ]]; then
		fail "3 the job was never interrupted and requeued: $details"
		indent <"$WORK/job-$job.states"
		grep -v '^{' "$S3/job.log" | tail -n 20 | indent
	elif same "$S3/reference.jsonl" "$S3/answers.jsonl" "3 requeued vs uninterrupted"; then
		pass "3 $details; output byte-identical to the uninterrupted run ($(wc -l <"$S3/answers.jsonl") records)"
		indent <"$WORK/job-$job.states"
		grep -E 'start \(restart|got SIGUSR1|exited|requeueing|resum' "$S3/job.log" | cut -c1-160 | indent
	else
		fail "3 $details, but the output differs from the uninterrupted run"
	fi
fi

# ---------------------------------------------------------------- 4
note "scenario 4: sbatch multi-node.sbatch on n1+n2 (ranks, then the merge step)"
S4=$WORK/s4
mkdir -p "$S4"
job=$(QA_SHARD=$BIN sbatch --parsable --chdir="$S4" --output="$S4/job.log" --job-name=s4-multi \
	--nodes=2 --ntasks-per-node=2 --gpus-per-node=1 --cpus-per-task=1 --time=5 \
	configs/slurm/multi-node.sbatch --devices cpu --threads 1 --model "$MODEL" --input "$WORK/small.jsonl" \
	"${QUESTIONS[@]}" --output "$S4/answers.jsonl" --log-format console 2>"$S4/sbatch.err")
if [[ -z $job ]]; then
	fail "4 sbatch refused the job: $(cat "$S4/sbatch.err")"
elif ! wait_job "$job" 180; then
	fail "4 job $job did not complete: $(job_field "$job" JobState) exit $(job_field "$job" ExitCode)"
	indent <"$WORK/job-$job.states"
	tail -n 30 "$S4/job.log" | indent
elif same "$S1/answers.jsonl" "$S4/answers.jsonl" "4 multi-node job vs reference"; then
	pass "4 job $job: 4 ranks on $(job_field "$job" NodeList), merged in the job: byte-identical to the reference"
	grep -E 'ranks done|merging|merge exited' "$S4/job.log" | indent
else
	fail "4 the multi-node job's merged output differs from the reference"
	tail -n 20 "$S4/job.log" | indent
fi

# ---------------------------------------------------------------- 5
note "scenario 5: sbatch array.sbatch (3 shards) on a corpus with a malformed line, merge job with afterany"
S5=$WORK/s5
mkdir -p "$S5"
# The corpus with one malformed line in the middle: the task that owns it
# completes with an error record (exit 3); the merge must still run.
{ head -n 30 "$WORK/small.jsonl"; echo '{"id": "broken", "context": '; tail -n +31 "$WORK/small.jsonl"; } >"$S5/docs.jsonl"
"$BIN" --devices cpu --threads 1 --model "$MODEL" --input "$S5/docs.jsonl" "${QUESTIONS[@]}" \
	--output "$S5/reference.jsonl" --log-format console >"$S5/reference.log" 2>&1
refrc=$?
arr=$(QA_SHARD=$BIN sbatch --parsable --chdir="$S5" --output="$S5/task-%a.log" --job-name=s5-array \
	--array=0-2 --gres=gpu:1 --cpus-per-task=1 --time=5 \
	configs/slurm/array.sbatch --devices cpu --threads 1 --model "$MODEL" --input "$S5/docs.jsonl" \
	"${QUESTIONS[@]}" --output "$S5/answers.jsonl" --log-format json 2>"$S5/sbatch.err")
merge=""
if [[ -n $arr ]]; then
	merge=$(sbatch --parsable --chdir="$S5" --output="$S5/merge.log" --job-name=s5-merge --dependency=afterany:"$arr" \
		--wrap "$BIN merge --log-format json --output $S5/answers.jsonl $S5/answers.rank-*-of-00003.jsonl" 2>>"$S5/sbatch.err")
fi
tasks=""
if [[ -n $arr && -n $merge ]]; then
	wait_job "$merge" 180
	mrc=$?
	for i in 0 1 2; do tasks+="task $i $(job_field "${arr}_$i" JobState) exit $(job_field "${arr}_$i" ExitCode); "; done
fi
errs=$(grep -c '"error"' "$S5/answers.jsonl" 2>/dev/null)
if [[ -z $arr || -z $merge ]]; then
	fail "5 sbatch refused the array or the merge job: $(cat "$S5/sbatch.err")"
elif [[ $refrc -ne 3 ]]; then
	fail "5 the reference run on the corpus with a bad line exited $refrc, want 3"
	tail -n 10 "$S5/reference.log" | indent
elif [[ $mrc -ne 0 ]]; then
	fail "5 merge job $merge (after array $arr) did not complete: $(job_field "$merge" JobState) $(job_field "$merge" Reason); $tasks"
	indent <"$WORK/job-$merge.states"
	tail -n 5 "$S5"/*.log | indent
elif [[ $tasks != *"exit 3:0"* ]]; then
	fail "5 no array task exited 3, so the bad line was not tested: $tasks"
elif same "$S5/reference.jsonl" "$S5/answers.jsonl" "5 array + merge job vs reference"; then
	pass "5 array $arr with a malformed line: $tasks-> merge job $merge (afterany) COMPLETED: $(grep -o '"msg":"merged[^"]*"' "$S5/merge.log"); $errs error record, byte-identical to the single-process run (exit 3)"
	grep -h '"exit_code"' "$S5"/task-*.log | cut -c1-220 | indent
else
	fail "5 the array's merged output differs from the reference"
fi

# ---------------------------------------------------------------- 6
note "scenario 6: configs/slurm/submit refuses bad arguments before anything queues"
S6=$WORK/s6
mkdir -p "$S6"
jobs_known() { scontrol -o show jobs 2>/dev/null | grep -c '^JobId='; }
before=$(jobs_known)
refused=""
# refuse NAME WANT SUBMIT-ARGS...: submit must exit 2, say WANT, queue nothing.
refuse() {
	local name=$1 want=$2 out rc
	shift 2
	out=$(cd "$S6" && QA_SHARD=$BIN "$ROOT/configs/slurm/submit" --parsable --time=5 "$@" 2>&1)
	rc=$?
	if [[ $rc -ne 2 || $out != *"$want"* || $out != *"nothing was queued"* ]]; then
		fail "6 $name: submit exited $rc, want 2 saying \"$want\""
		echo "$out" | tail -n 5 | indent
		return 1
	fi
	refused+="$name; "
}
echo '{"not": "a qa-shard output"}' >"$S6/foreign.jsonl"
r6=0
refuse "multi-node without --output" "--output FILE is required" \
	"$ROOT/configs/slurm/multi-node.sbatch" --devices cpu --model "$MODEL" --input "$WORK/small.jsonl" "${QUESTIONS[@]}" || r6=1
refuse "array with a missing model" "not found" \
	"$ROOT/configs/slurm/array.sbatch" --model "$S6/no-such-model" --input "$WORK/small.jsonl" "${QUESTIONS[@]}" --output "$S6/a.jsonl" || r6=1
refuse "cpu over a file no run wrote" "has no journal" \
	"$ROOT/configs/slurm/cpu.sbatch" --model "$MODEL" --input "$WORK/small.jsonl" "${QUESTIONS[@]}" --output "$S6/foreign.jsonl" || r6=1
after=$(jobs_known)
if [[ $after -ne $before ]]; then
	fail "6 the controller holds $((after - before)) more job(s) after the refused submits"
	scontrol -o show jobs | tail -n 3 | cut -c1-200 | indent
elif [[ $r6 -eq 0 ]]; then
	pass "6 submit refused, exit 2, no job queued ($before jobs before and after): $refused"
fi

# ---------------------------------------------------------------- 7
note "scenario 7: configs/slurm/submit configs/slurm/cpu.sbatch on n1+n2 (no GPU; one rank a node, merged)"
S7=$WORK/s7
mkdir -p "$S7"
job=$(QA_SHARD=$BIN "$ROOT/configs/slurm/submit" --parsable --chdir="$S7" --output="$S7/job.log" --job-name=s7-cpu \
	--nodes=2 --cpus-per-task=1 --time=5 \
	"$ROOT/configs/slurm/cpu.sbatch" --threads 1 --model "$MODEL" --input "$WORK/small.jsonl" \
	"${QUESTIONS[@]}" --output answers.jsonl --log-format console 2>"$S7/submit.err")
if [[ -z $job ]]; then
	fail "7 submit did not queue the CPU job"
	tail -n 5 "$S7/submit.err" | indent
elif ! grep -q "check passed" "$S7/submit.err"; then
	fail "7 job $job queued without the check's word"
	indent <"$S7/submit.err"
elif ! wait_job "$job" 180; then
	fail "7 job $job did not complete: $(job_field "$job" JobState) exit $(job_field "$job" ExitCode)"
	indent <"$WORK/job-$job.states"
	tail -n 30 "$S7/job.log" | indent
elif [[ $(job_field "$job" TresPerNode) == *gpu* || $(job_field "$job" Gres) == *gpu* ]]; then
	fail "7 the CPU job asked for GPUs: $(scontrol -o show job "$job" | tr ' ' '\n' | grep -i gres)"
elif same "$S1/answers.jsonl" "$S7/answers.jsonl" "7 CPU job vs reference"; then
	pass "7 job $job: checked at submit, 2 ranks (one a node) on $(job_field "$job" NodeList) with --devices cpu, merged in the job: byte-identical to the reference"
	grep -E 'ranks done|merging|merge exited' "$S7/job.log" | indent
else
	fail "7 the CPU job's merged output differs from the reference"
	tail -n 20 "$S7/job.log" | indent
fi

# ---------------------------------------------------------------- 8
note "stopping the cluster"
if bash scripts/slurm/cluster.sh stop "$CLUSTER" 2>"$WORK/stop.log"; then
	# Nothing of ours may be left: no process working in, or holding a file
	# of, the scratch folder (daemons, slurmstepd, qa-shard ranks).
	left=""
	for p in /proc/[0-9]*; do
		pid=${p#/proc/}
		[[ $pid == "$$" || $pid == "$BASHPID" ]] && continue
		cwd=$(readlink "$p/cwd" 2>/dev/null) || continue
		if [[ $cwd == "$WORK"* ]] || ls -l "$p/fd" 2>/dev/null | grep -qF -- "$WORK/"; then
			left+="$pid($(tr '\0' ' ' <"$p/cmdline" | cut -c1-60)) "
		fi
	done
	if [[ -z $left ]]; then
		pass "8 cluster stopped by pid: $(tail -n1 "$WORK/stop.log" | sed 's/^cluster.sh: //'); no process left in the scratch folder"
	else
		fail "8 processes left after stopping the cluster: $left"
	fi
else
	fail "8 cluster stop failed"
	indent <"$WORK/stop.log"
fi

# cleanup (the EXIT trap) prints "N passed, M failed" and sets the status.
[[ $failed -eq 0 ]]
