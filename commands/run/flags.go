package run

import (
	"fmt"
	"runtime"
	"time"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/job"
	"qa-shard/qa"
)

// parse parses the run command's arguments (help is the top of
// --help) and merges --config.
func parse(args []string, help string) (*job.Options, error) {
	o := &job.Options{}
	fs := flagSet(o)
	if err := cli.Parse(fs, args, help); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("%w: unexpected argument %q: the subcommands are run, merge, status, tokenize, devices, bench, quantize, eval, export, version and help, and every setting of a run is a flag (see --help)", cli.ErrUsage, fs.Arg(0))
	}
	if o.Config != "" {
		if err := cli.ApplyConfig(fs, o.Config); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// flagSet is the run command's flags, each setting a field of o.
func flagSet(o *job.Options) *pflag.FlagSet {
	fs := pflag.NewFlagSet("qa-shard", pflag.ContinueOnError)
	d := qa.DefaultSettings()
	fs.StringVar(&o.Config, "config", "", "YAML file of flag values (keys are flag names without dashes); flags on the command line win")
	fs.BoolVar(&o.CheckOnly, "check", false, "check what the run would refuse (flags, questions, input files, output, the model's folder, weights and tokenizer), without ONNX Runtime, devices or the network, then exit 0 or 2: for a login node before a batch job queues")
	fs.StringVar(&o.Model, "model", "", "the model: a folder as save_pretrained writes it (config.json, model.safetensors or pytorch_model.bin, tokenizer files), a Hugging Face Hub id (org/name: from the Hugging Face cache, downloaded into it when absent), or an optimum ONNX export (model.onnx)")
	fs.StringArrayVar(&o.Inputs, "input", nil, "corpus: a file, folder or glob (repeatable; read in the order given, folders and globs sorted) of .jsonl, .jsonl.gz, .jsonl.zst or .parquet, one {\"id\", \"context\", \"question\"?, \"questions\"?} record per line or row, or a SQuAD v1.1/v2.0 .json dataset (a paragraph per document, question ids kept); - reads standard input")
	fs.StringVar(&o.Fields.ID, "id-field", "id", "field holding a record's id (a dotted path reaches into nested objects: meta.id); records without one get \"<file>:<offset or row>\"")
	fs.StringVar(&o.Fields.Context, "context-field", "context", "field holding the text to answer from (dotted paths work)")
	fs.StringVar(&o.Fields.Question, "question-field", "", "field holding a record's own question or list of questions (default: question and questions)")
	fs.StringVar(&o.Fields.Settings, "settings-field", "", "field holding a record's own answer settings, an object in transformers' names (top_k, doc_stride, max_answer_len, max_seq_len up to --max-seq-len, handle_impossible_answer, align_to_words); what a record leaves out is the run's (JSONL output only)")
	fs.StringSliceVar(&o.Fields.Keep, "keep-fields", nil, "input fields copied into every output record, answers and errors, JSONL and Parquet (comma-separated, dotted paths work)")
	fs.StringVar(&o.IDType, "id-type", "auto", "type of ids in every output: auto (integers when the run's first record has an integer id, else strings), string or integer")
	fs.StringVar(&o.Output, "output", "answers.jsonl", "answers in input order, one record per (document, question); by extension: .jsonl, .jsonl.gz or .jsonl.zst (compressed, resumable), or .parquet (a folder of Parquet parts); - writes standard output")
	fs.BoolVar(&o.Overwrite, "overwrite", false, "replace an existing --output (its journal and --logits) instead of refusing")
	fs.BoolVar(&o.Resume, "resume", false, "continue an interrupted run from its journal (<output>.journal); starts fresh if there is none")
	fs.BoolVar(&o.NoLock, "no-lock", false, "do not lock the outputs (<output>.lock): only where the file system refuses locks (Lustre without -o flock) and you make sure yourself that one run writes them")
	fs.StringVar(&o.Logits, "logits", "", "also write every window's raw start/end logits with token offsets to this directory of Parquet parts (pandas.read_parquet(DIR))")
	fs.StringArrayVar(&o.Questions, "question", nil, "question to ask of every document (repeatable); records may add their own")
	fs.StringVar(&o.QuestionsFile, "questions-file", "", "file of questions, one per line ('#' starts a comment)")
	fs.StringVar(&o.Devices, "devices", "all", "where replicas run: all (every GPU NVML finds, else the CPU), NVML indices as nvidia-smi shows them (0,1), GPU-<uuid> or a unique prefix, one MIG-<uuid>, cpu, or cpu:N; an existing CUDA_VISIBLE_DEVICES bounds the choice")
	fs.IntVar(&o.Rank, "rank", -1, "this process's rank when several share the corpus (default: from Slurm SLURM_PROCID, torchrun RANK or Kubernetes JOB_COMPLETION_INDEX)")
	fs.IntVar(&o.WorldSize, "world-size", 0, "number of ranks (default: from the same sources); each rank answers a contiguous block and writes <output>.rank-RRRRR-of-WWWWW, combined by qa-shard merge")
	fs.StringVar(&o.Provider, "provider", "", "execution provider on GPUs: cuda (default) or tensorrt; cpu on the CPU")
	fs.IntVar(&o.ReplicasPerDevice, "replicas-per-device", 0, "sessions per device (0: measured; GPUs try 2 and 1, the CPU one per core down to one of all cores)")
	fs.StringVar(&o.Precision, "precision", "fp32", "fp32 (answers as transformers gives them) or fp16, for CUDA GPUs: a checkpoint's graph is built in float16 (with --provider tensorrt: float16 engines); refused on the CPU. How far fp16's answers are from fp32's on your documents: qa-shard export --precision fp16 --check-input")
	fs.StringVar(&o.Graph, "graph", "auto", "how a checkpoint folder's graph is built: fused (ONNX Runtime's fused Attention, SkipLayerNormalization, BiasGelu: for CUDA GPUs), standard (ONNX's own operators, as an optimum export: faster on the CPUs measured, and what TensorRT parses), or auto: fused on CUDA GPUs, standard on the CPU and with TensorRT. An ONNX export runs as it is")
	fs.BoolVar(&o.FP16, "fp16", false, "TensorRT: build float16 engines")
	_ = fs.MarkDeprecated("fp16", "use --precision fp16")
	fs.Float64Var(&o.GPUMemFraction, "gpu-mem-fraction", 0, "CUDA arena limit as a fraction of each GPU's memory, shared by its sessions (0: no limit)")
	fs.StringVar(&o.TRTCacheDir, "trt-cache-dir", "trt-cache", "TensorRT engine cache; one subfolder per GPU model")
	fs.DurationVar(&o.GPUSampleInterval, "gpu-sample-interval", 10*time.Second, "how often GPU utilization, memory, temperature, power and throttling are sampled")
	fs.StringVar(&o.Revision, "revision", "", "with a Hub model id as --model: the branch, tag or commit to use (default main)")
	fs.StringVar(&o.ModelCache, "model-cache", "", "where graphs built from checkpoint folders (config.json and weights, no model.onnx) are kept, keyed by the weights' digest, so a second run starts at once (default: qa-shard/models in the user's cache directory; none: build for this run only)")
	fs.StringVar(&o.ORTLib, "ort-lib", "", "ONNX Runtime shared library (1.24 or newer); default $QA_SHARD_ORT_LIB, else the one installed beside this binary (../lib/qa-shard/, where make install puts it; ../ort/ in the build tree); qa-shard version says which")
	fs.StringVar(&o.MecabLib, "mecab-lib", "", "libmecab for a Japanese BERT model whose tokenizer splits words with MeCab; default $QA_SHARD_MECAB_LIB, else the dynamic loader's libmecab.so.2")
	fs.StringVar(&o.MecabDicdir, "mecab-dicdir", "", "MeCab dictionary folder for such a model, instead of searching for the one it names (it must be that dictionary); default $QA_SHARD_MECAB_DICDIR")
	fs.IntVar(&o.Threads, "threads", 0, "intra-op threads per session (0: the machine's cores divided among the sessions; on the CPU, setting it pins the layout to cores/threads sessions)")
	fs.IntVar(&o.Settings.MaxSeqLen, "max-seq-len", d.MaxSeqLen, "tokens per window, question and special tokens included")
	fs.IntVar(&o.Settings.DocStride, "doc-stride", d.DocStride, "tokens of context shared by consecutive windows (overlap, as Hugging Face's stride)")
	fs.IntVar(&o.Settings.MaxAnswerLen, "max-answer-len", d.MaxAnswerLen, "longest answer in tokens")
	fs.IntVar(&o.Settings.TopK, "top-k", d.TopK, "answers per (document, question); above 1 they are listed under \"answers\"")
	fs.BoolVar(&o.Settings.HandleImpossible, "handle-impossible-answer", d.HandleImpossible, "allow the empty answer (SQuAD 2.0 style)")
	fs.BoolVar(&o.Settings.AlignToWords, "align-to-words", d.AlignToWords, "extend answers to whole words, as Hugging Face does")
	fs.BoolVar(&o.Settings.LegacyTopK, "legacy-top-k", d.LegacyTopK, "decode as transformers 4.53 and earlier: each window proposes only --top-k spans, so fewer answers may come back (default: 4.54 and later, which ask each window for 2k+10 when aligning to words)")
	fs.IntVar(&o.MaxBatchTokens, "max-batch-tokens", 0, "token budget of one batch, rows times padded length (0: measured during the run per device class, and cached)")
	fs.StringVar(&o.TuneCache, "tune-cache", "", "file of the batch shapes and session layouts measured per device, runtime, model and precision (default: qa-shard/tuning.json in the user's cache directory; none: off)")
	fs.Float64Var(&o.TuneShare, "tune-share", 2, "percent of the run's time the batch-shape and layout search may take when nothing is cached (it learns from the run's own batches; cut short, it keeps the best shape found and caches nothing); 100: search to the end")
	fs.IntVar(&o.MaxLineBytes, "max-line-bytes", 16<<20, "longer input lines become error records")
	fs.IntVar(&o.MaxWindowsPerDoc, "max-windows-per-doc", 2048, "a document needing more windows (all its questions together) gets error records instead of answers, saying how many it needs; 0: no limit")
	fs.IntVar(&o.MaxInflightMB, "max-inflight-mb", 64, "memory budget (estimated) of documents read but not yet written: bounds every queue, and how much a graceful stop finishes")
	fs.IntVar(&o.TokenizeWorkers, "tokenize-workers", runtime.NumCPU(), "goroutines tokenizing documents")
	fs.DurationVar(&o.BatchTimeout, "batch-timeout", 0, "terminate a batch running longer and treat it as a failure (0: ten times the slowest batch seen, at least 1m)")
	fs.DurationVar(&o.DrainTimeout, "drain-timeout", 90*time.Second, "after SIGUSR1 (Slurm's early warning): time to finish the documents already read before stopping (SIGINT, SIGTERM and SIGHUP stop at once)")
	fs.DurationVar(&o.CheckpointInterval, "checkpoint-interval", 30*time.Second, "how often written records are made durable and journaled for --resume")
	fs.StringVar(&o.MaxErrors, "max-errors", "0", "error records (bad lines, unanswerable questions) a complete run tolerates and still exits 0: a count, or a percentage of the records written (0.1%); above it, exit 3")
	fs.StringVar(&o.MetricsAddr, "metrics-addr", "", "serve Prometheus metrics at http://ADDR/metrics (a bare :port binds 127.0.0.1; :0 or 0.0.0.0:0 lets the OS choose a free port, logged and written to <output>.metrics.json: use it when several ranks share a node); off by default")
	fs.StringVar(&o.MetricsTextfile, "metrics-textfile", "", "also write the metrics to this .prom file for node_exporter's textfile collector, replaced atomically every --metrics-interval (ranks: <name>.rank-RRRRR-of-WWWWW.prom)")
	fs.DurationVar(&o.MetricsInterval, "metrics-interval", 15*time.Second, "how often --metrics-textfile is rewritten")
	cli.AddLogFlags(fs, &o.LogFormat, &o.LogLevel)
	fs.DurationVar(&o.ProgressInterval, "progress-interval", 30*time.Second, "how often a progress line is logged")
	return fs
}
