package run

// Help is the top of the run command's --help, before its flags:
// what qa-shard does, the subcommands, exitCodes (main's table, a line
// a code) and the signals.
func Help(exitCodes string) string {
	return `qa-shard asks the same question(s) of every document of a corpus (JSONL,
gzip or zstd JSONL, Parquet; files, folders, globs) with an extractive
question-answering model (a save_pretrained folder, a Hugging Face Hub id, or an
ONNX export; BERT/SQuAD families) and writes every answer in
input order (JSONL, gzip or zstd JSONL, or Parquet).

Usage:
  qa-shard [run] --model DIR|ORG/NAME --input docs.jsonl --question "..." [flags]
  qa-shard [run] --model DIR --input data/ --input 'more/*.parquet' --context-field text --output answers.parquet
  qa-shard merge --output FILE RANK_FILES...   (combine the outputs of ranks)
  qa-shard status [--json] OUTPUT...           (where a run and each of its ranks stand)
  qa-shard tokenize --model DIR [--question Q] TEXT...   (how the model folder's tokenizer reads a text)
  qa-shard devices [--json]                    (GPUs as NVML numbers them)
  qa-shard bench --model DIR --input docs.jsonl   (raw model, end to end tuned and by hand, int8, naive loop)
  qa-shard quantize --model DIR --out DIR       (int8 copy of a model for the CPU)
  qa-shard eval --gold GOLD.jsonl [LABEL=]ANSWERS.jsonl...   (SQuAD exact match and F1, within and beyond token 512)
  qa-shard export --model DIR|ORG/NAME --out DIR   (the ONNX graph qa-shard builds from a checkpoint, as an optimum-style folder)
  qa-shard version
  qa-shard help [SUBCOMMAND]                   (or SUBCOMMAND --help)

Flags may come before or after arguments; --name=value and --name value both work.

Exit codes:
` + exitCodes + `
Signals: SIGINT, SIGTERM, SIGHUP (unless started ignoring it, as under nohup)
and SIGQUIT stop at once: the batches in flight are cancelled (redone on
resume), the documents done are saved, exit 75. SIGUSR1 (Slurm's warning)
stops reading, finishes the documents already read within --drain-timeout,
saves, and exits 75. The same signal delivered twice within a second (to the
process and to its group, as timeout and scancel do) counts once; a second
stop signal sent later ends the process at once, the journal at its last
checkpoint, which --resume continues.`
}
