#!/usr/bin/env bash
# The fp16 answer check per family (make fp16-check): each trained demo
# model as a save_pretrained folder (its committed weights, BERT's layout,
# with its built folder's tokenizer files), exported in fp16 with
# `qa-shard export --precision fp16 --check-input` on 100 gencorpus
# documents of its own tokenizer, two questions each; then the seeded
# random-weight checkpoint of every family (make reference-run) on the
# golden documents. Prints one line per model: its answer check.
#
#   scripts/fp16-check.sh BIN MODELS CHECKPOINTS OUT
set -euo pipefail
bin=$1 models=$2 checkpoints=$3 out=$4
rm -rf "$out" && mkdir -p "$out"
check() { # name folder docs questions
	"$bin" export --model "$2" --out "$out/fp16-$1" --precision fp16 --check-input "$3" --questions-file "$4" \
		--check-min-f1 0.01 --log-format json 2>&1 |
		python3 -c 'import json, sys
for line in sys.stdin:
    try:
        e = json.loads(line)
    except ValueError:
        continue
    if "check_f1" in e:
        print("%-14s %3d documents %3d questions  EM %6.2f  F1 %6.2f  identical %3d  score drift max %.1e" % (sys.argv[1],
              e["check_documents"], e["check_questions"], e["check_exact_match"], e["check_f1"], e["check_identical"],
              e["check_score_drift_max"]))
        sys.exit(0)
sys.exit("no answer check for " + sys.argv[1])' "$1"
}
for m in demo demo-bpe demo-unigram demo-ja; do
	ck=$out/ck-$m
	mkdir -p "$ck"
	cp "internal/testing/testmodel/$m/model.safetensors" "$ck/"
	for f in "$models/$m"/*; do
		case $(basename "$f") in model.onnx | config.json) ;; *) cp "$f" "$ck/" ;; esac
	done
	# The demo models are BERT's layout whatever their tokenizer.
	python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
c.update(model_type="bert", architectures=["BertForQuestionAnswering"])
c.pop("_name_or_path", None)
json.dump(c, open(sys.argv[2], "w"), indent=2)' "$models/$m/config.json" "$ck/config.json"
	lang=en
	[ "$m" = demo-ja ] && lang=ja
	go run ./tools/gencorpus -lang "$lang" -n 100 -seed 77 -questions founder,hq -out "$out/docs-$m.jsonl" \
		-tokenizer "$models/$m" -questions-out "$out/questions-$m.txt" 2>/dev/null
	check "$m" "$ck" "$out/docs-$m.jsonl" "$out/questions-$m.txt"
done
printf 'Who founded the company?\nWhere is the headquarters?\n' >"$out/questions-golden.txt"
for ck in "$checkpoints"/ck-*; do
	check "$(basename "$ck")" "$ck" cmd/qa-shard/testdata/golden-docs.jsonl "$out/questions-golden.txt"
done
