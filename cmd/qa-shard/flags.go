package main

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap"
	"go.yaml.in/yaml/v3"

	"qa-shard/fleet"
	"qa-shard/qa"
	"qa-shard/shard"
)

// options are the run command's settings; every field is a flag, and every
// flag can also be set in --config FILE.yaml under the same name.
type options struct {
	config string

	model, output, logits     string
	inputs                    []string
	overwrite, resume, noLock bool
	questions                 []string
	questionsFile             string
	fields                    shard.Fields
	idType                    string

	devices, ortLib, provider, trtCacheDir string
	threads, replicasPerDevice             int
	rank, worldSize                        int
	fp16                                   bool
	gpuMemFraction                         float64
	gpuSampleInterval                      time.Duration

	settings         qa.Settings
	maxBatchTokens   int
	tuneCache        string
	maxLineBytes     int
	maxInflightMB    int
	maxWindowsPerDoc int
	tokenizeWorkers  int

	batchTimeout, drainTimeout, checkpointInterval time.Duration

	maxErrors, metricsAddr, metricsTextfile, logFormat, logLevel string
	metricsInterval, progressInterval                            time.Duration
}

func newFlagSet(o *options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("qa-shard", pflag.ContinueOnError)
	d := qa.DefaultSettings()
	fs.StringVar(&o.config, "config", "", "YAML file of flag values (keys are flag names without dashes); flags on the command line win")
	fs.StringVar(&o.model, "model", "", "model directory as exported by optimum (model.onnx, tokenizer.json, config.json)")
	fs.StringArrayVar(&o.inputs, "input", nil, "corpus: a file, folder or glob (repeatable; read in the order given, folders and globs sorted) of .jsonl, .jsonl.gz, .jsonl.zst or .parquet, one {\"id\", \"context\", \"question\"?, \"questions\"?} record per line or row; - reads standard input")
	fs.StringVar(&o.fields.ID, "id-field", "id", "field holding a record's id (a dotted path reaches into nested objects: meta.id); records without one get \"<file>:<offset or row>\"")
	fs.StringVar(&o.fields.Context, "context-field", "context", "field holding the text to answer from (dotted paths work)")
	fs.StringVar(&o.fields.Question, "question-field", "", "field holding a record's own question or list of questions (default: question and questions)")
	fs.StringSliceVar(&o.fields.Keep, "keep-fields", nil, "input fields copied into every output record, answers and errors, JSONL and Parquet (comma-separated, dotted paths work)")
	fs.StringVar(&o.idType, "id-type", "auto", "type of ids in every output: auto (integers when the run's first record has an integer id, else strings), string or integer")
	fs.StringVar(&o.output, "output", "answers.jsonl", "answers in input order, one record per (document, question); by extension: .jsonl, .jsonl.gz or .jsonl.zst (compressed, resumable), or .parquet (a folder of Parquet parts); - writes standard output")
	fs.BoolVar(&o.overwrite, "overwrite", false, "replace an existing --output (its journal and --logits) instead of refusing")
	fs.BoolVar(&o.resume, "resume", false, "continue an interrupted run from its journal (<output>.journal); starts fresh if there is none")
	fs.BoolVar(&o.noLock, "no-lock", false, "do not lock the outputs (<output>.lock): only where the file system refuses locks (Lustre without -o flock) and you make sure yourself that one run writes them")
	fs.StringVar(&o.logits, "logits", "", "also write every window's raw start/end logits with token offsets to this directory of Parquet parts (pandas.read_parquet(DIR))")
	fs.StringArrayVar(&o.questions, "question", nil, "question to ask of every document (repeatable); records may add their own")
	fs.StringVar(&o.questionsFile, "questions-file", "", "file of questions, one per line ('#' starts a comment)")
	fs.StringVar(&o.devices, "devices", "all", "where replicas run: all (every GPU NVML finds, else the CPU), NVML indices as nvidia-smi shows them (0,1), GPU-<uuid> or a unique prefix, one MIG-<uuid>, cpu, or cpu:N; an existing CUDA_VISIBLE_DEVICES bounds the choice")
	fs.IntVar(&o.rank, "rank", -1, "this process's rank when several share the corpus (default: from Slurm SLURM_PROCID, torchrun RANK or Kubernetes JOB_COMPLETION_INDEX)")
	fs.IntVar(&o.worldSize, "world-size", 0, "number of ranks (default: from the same sources); each rank answers a contiguous block and writes <output>.rank-RRRRR-of-WWWWW, combined by qa-shard merge")
	fs.StringVar(&o.provider, "provider", "", "execution provider on GPUs: cuda (default) or tensorrt; cpu on the CPU")
	fs.IntVar(&o.replicasPerDevice, "replicas-per-device", 0, "sessions per device (0: measured; GPUs try 2 and 1, the CPU one per core down to one of all cores)")
	fs.BoolVar(&o.fp16, "fp16", false, "TensorRT: build float16 engines")
	fs.Float64Var(&o.gpuMemFraction, "gpu-mem-fraction", 0, "CUDA arena limit as a fraction of each GPU's memory, shared by its sessions (0: no limit)")
	fs.StringVar(&o.trtCacheDir, "trt-cache-dir", "trt-cache", "TensorRT engine cache; one subfolder per GPU model")
	fs.DurationVar(&o.gpuSampleInterval, "gpu-sample-interval", 10*time.Second, "how often GPU utilization, memory, temperature, power and throttling are sampled")
	fs.StringVar(&o.ortLib, "ort-lib", "", "ONNX Runtime shared library (1.24 or newer); default $QA_SHARD_ORT_LIB, else ../ort/libonnxruntime.so.1 beside this binary (where make puts it)")
	fs.IntVar(&o.threads, "threads", 0, "intra-op threads per session (0: the machine's cores divided among the sessions; on the CPU, setting it pins the layout to cores/threads sessions)")
	fs.IntVar(&o.settings.MaxSeqLen, "max-seq-len", d.MaxSeqLen, "tokens per window, question and special tokens included")
	fs.IntVar(&o.settings.DocStride, "doc-stride", d.DocStride, "tokens of context shared by consecutive windows (overlap, as Hugging Face's stride)")
	fs.IntVar(&o.settings.MaxAnswerLen, "max-answer-len", d.MaxAnswerLen, "longest answer in tokens")
	fs.IntVar(&o.settings.TopK, "top-k", d.TopK, "answers per (document, question); above 1 they are listed under \"answers\"")
	fs.BoolVar(&o.settings.HandleImpossible, "handle-impossible-answer", d.HandleImpossible, "allow the empty answer (SQuAD 2.0 style)")
	fs.BoolVar(&o.settings.AlignToWords, "align-to-words", d.AlignToWords, "extend answers to whole words, as Hugging Face does")
	fs.IntVar(&o.maxBatchTokens, "max-batch-tokens", 0, "token budget of one batch, rows times padded length (0: measured during the run per device class, and cached)")
	fs.StringVar(&o.tuneCache, "tune-cache", "", "file of the batch shapes and session layouts measured per device, runtime, model and precision (default: qa-shard/tuning.json in the user's cache directory; none: off)")
	fs.IntVar(&o.maxLineBytes, "max-line-bytes", 16<<20, "longer input lines become error records")
	fs.IntVar(&o.maxWindowsPerDoc, "max-windows-per-doc", 2048, "a document needing more windows (all its questions together) gets error records instead of answers, saying how many it needs; 0: no limit")
	fs.IntVar(&o.maxInflightMB, "max-inflight-mb", 64, "memory budget (estimated) of documents read but not yet written: bounds every queue, and how much a graceful stop finishes")
	fs.IntVar(&o.tokenizeWorkers, "tokenize-workers", runtime.NumCPU(), "goroutines tokenizing documents")
	fs.DurationVar(&o.batchTimeout, "batch-timeout", 0, "terminate a batch running longer and treat it as a failure (0: ten times the slowest batch seen, at least 1m)")
	fs.DurationVar(&o.drainTimeout, "drain-timeout", 90*time.Second, "after SIGINT, SIGTERM or SIGUSR1: time to finish the documents already read before stopping hard")
	fs.DurationVar(&o.checkpointInterval, "checkpoint-interval", 30*time.Second, "how often written records are made durable and journaled for --resume")
	fs.StringVar(&o.maxErrors, "max-errors", "0", "error records (bad lines, unanswerable questions) a complete run tolerates and still exits 0: a count, or a percentage of the records written (0.1%); above it, exit 3")
	fs.StringVar(&o.metricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics (a bare :port binds 127.0.0.1; :0 or 0.0.0.0:0 lets the OS choose a free port, logged and written to <output>.metrics.json: use it when several ranks share a node); off by default")
	fs.StringVar(&o.metricsTextfile, "metrics-textfile", "", "also write the metrics to this .prom file for node_exporter's textfile collector, replaced atomically every --metrics-interval (ranks: <name>.rank-RRRRR-of-WWWWW.prom)")
	fs.DurationVar(&o.metricsInterval, "metrics-interval", 15*time.Second, "how often --metrics-textfile is rewritten")
	addLogFlags(fs, &o.logFormat, &o.logLevel)
	fs.DurationVar(&o.progressInterval, "progress-interval", 30*time.Second, "how often a progress line is logged")
	return fs
}

// parseRun parses the run command's arguments and merges --config.
func parseRun(args []string) (*options, error) {
	o := &options{}
	fs := newFlagSet(o)
	if err := parseFlags(fs, args, runHelp()); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected argument %q: the subcommands are run, merge, devices, bench, version and help, and every setting of a run is a flag (see --help)", errUsage, fs.Arg(0))
	}
	if o.config != "" {
		if err := applyConfig(fs, o.config); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// applyConfig sets, from a YAML file, every flag the command line did not.
func applyConfig(fs *pflag.FlagSet, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%w: reading --config: %w", errUsage, err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(b, &m); err != nil {
		return fmt.Errorf("%w: --config %s is not valid YAML: %w", errUsage, path, err)
	}
	set := map[string]bool{}
	fs.Visit(func(f *pflag.Flag) { set[f.Name] = true })
	for k, v := range m {
		if fs.Lookup(k) == nil || k == "config" {
			return fmt.Errorf("%w: --config %s: unknown setting %q (settings are flag names, see --help)", errUsage, path, k)
		}
		if set[k] {
			continue
		}
		vals := []any{v}
		if list, ok := v.([]any); ok {
			vals = list
		}
		for _, x := range vals {
			if err := fs.Set(k, fmt.Sprint(x)); err != nil {
				return fmt.Errorf("%w: --config %s: %s: %w", errUsage, path, k, err)
			}
		}
	}
	return nil
}

// runHelp is the top of --help; the flags follow it.
func runHelp() string {
	var codes strings.Builder
	for _, c := range exitCodes {
		fmt.Fprintf(&codes, "  %-3d %s\n", c.code, c.meaning)
	}
	return `qa-shard asks the same question(s) of every document of a corpus (JSONL,
gzip or zstd JSONL, Parquet; files, folders, globs) with an extractive
question-answering model (ONNX, BERT/SQuAD family) and writes every answer in
input order (JSONL, gzip or zstd JSONL, or Parquet).

Usage:
  qa-shard [run] --model DIR --input docs.jsonl --question "..." [flags]
  qa-shard [run] --model DIR --input data/ --input 'more/*.parquet' --context-field text --output answers.parquet
  qa-shard merge --output FILE RANK_FILES...   (combine the outputs of ranks)
  qa-shard devices [--json]                    (GPUs as NVML numbers them)
  qa-shard bench --model DIR --input docs.jsonl   (raw model, end to end tuned and by hand, int8, naive loop)
  qa-shard quantize --model DIR --out DIR       (int8 copy of a model for the CPU)
  qa-shard version
  qa-shard help [SUBCOMMAND]                   (or SUBCOMMAND --help)

Flags may come before or after arguments; --name=value and --name value both work.

Exit codes:
` + codes.String() + `
Signals: SIGINT, SIGTERM or SIGUSR1 (Slurm's warning) stop reading documents,
finish the ones already read within --drain-timeout, save, and exit 75. A
second SIGINT or SIGTERM stops at once; the journal stays consistent.`
}

// fleetOptions are the settings of the replicas.
func (o *options) fleetOptions(log *zap.Logger) fleet.Options {
	return fleet.Options{Devices: o.devices, Provider: o.provider, ReplicasPerDevice: o.replicasPerDevice, Threads: o.threads,
		FP16: o.fp16, GPUMemFraction: o.gpuMemFraction, TRTCacheDir: o.trtCacheDir, MaxSeqLen: o.settings.MaxSeqLen,
		MaxBatchTokens: o.maxBatchTokens, Precision: o.precision(), SampleInterval: o.gpuSampleInterval, Log: log}
}

// precision is the arithmetic the sessions use, for the tuning cache key.
func (o *options) precision() string {
	if o.fp16 {
		return "fp16"
	}
	return "fp32"
}
