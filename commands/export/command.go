// Package export is `qa-shard export`: it writes the ONNX graph qa-shard
// builds from a checkpoint (a save_pretrained folder or a Hub id) as an
// optimum-style folder, for people who want to inspect it, run it
// elsewhere, or check a float16 graph's answers on their documents.
package export

import (
	"fmt"

	"github.com/spf13/pflag"

	"qa-shard/agreement"
	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
	"qa-shard/qamodel"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

const help = `Usage: qa-shard export --model DIR|ORG/NAME [--revision REV] --out DIR
                       [--graph fused|standard] [--precision fp32|fp16]
                       [--check-input FILE [--check-docs N] [--question Q]...]

Writes the graph qa-shard runs for a checkpoint (a folder as save_pretrained
writes it: config.json, model.safetensors or pytorch_model.bin, the
tokenizer's files; or a Hugging Face Hub id) as a folder like an optimum
export: model.onnx (model.onnx.data beside it past 2 GiB), config.json and
the tokenizer's files. --out must be new or empty. A run does this by
itself (and caches it: --model-cache); export is for looking at the graph,
running it elsewhere, or checking a float16 graph before a GPU run.

--graph fused (default) uses ONNX Runtime's fused operators (Attention,
SkipLayerNormalization, BiasGelu, EmbedLayerNormalization), as a run on
CUDA GPUs does; --graph standard writes ONNX's own operators only, as an
optimum export, for other runtimes and TensorRT. --precision fp16 writes a
float16 graph (fused), as --precision fp16 runs on CUDA GPUs.

--check-input FILE (files, folders or globs, as --input) checks the
export's answers on your own documents: the first --check-docs documents
(default 100), with their own questions and --question / --questions-file,
are answered by the checkpoint in float32 and by the export (on the CPU,
--check-devices), and the export's answers are scored against float32's as
SQuAD scores against gold: exact match, F1, identical answers and score
drift. It passes when its F1 is at least --check-min-f1 (default 99);
below it export exits 3, the export kept.`

// Run is `qa-shard export`; run is the run subcommand, which answers the
// sample of --check-input.
func Run(args []string, run func(args []string) error) error {
	fs := pflag.NewFlagSet("qa-shard export", pflag.ContinueOnError)
	model := fs.String("model", "", "the checkpoint: a save_pretrained folder or a Hub id")
	out := fs.String("out", "", "the folder to write (new or empty)")
	revision := fs.String("revision", "", "with a Hub id: the branch, tag or commit (default main)")
	graph := fs.String("graph", "fused", "fused (ONNX Runtime's fused operators, as a run on CUDA GPUs) or standard (ONNX's own, as an optimum export)")
	precision := fs.String("precision", "fp32", "fp32, or fp16: float16 weights and arithmetic, for CUDA GPUs")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime library for --check-input (default as for run)")
	var check agreement.Request
	check.AddFlags(fs)
	var logFormat, logLevel string
	cli.AddLogFlags(fs, &logFormat, &logLevel)
	if err := cli.Parse(fs, args, help); err != nil {
		return err
	}
	if err := cli.NoArgs(fs); err != nil {
		return err
	}
	if *model == "" || *out == "" {
		return fmt.Errorf("%w: pass --model DIR (or a Hub id) and --out DIR", cli.ErrUsage)
	}
	if err := check.Validate(fs); err != nil {
		return err
	}
	g := qamodel.Graph{Fused: *graph == "fused", Float16: *precision == "fp16"}
	switch {
	case *graph != "fused" && *graph != "standard":
		return fmt.Errorf("%w: --graph %q: use fused or standard", cli.ErrUsage, *graph)
	case *precision != "fp32" && *precision != "fp16":
		return fmt.Errorf("%w: --precision %q: use fp32 or fp16", cli.ErrUsage, *precision)
	case g.Float16 && !g.Fused:
		return fmt.Errorf("%w: --precision fp16 is built with the fused operators, whose LayerNorm and Softmax accumulate in float32 (written out of ONNX's own operators, LayerNorm's squares overflow float16): drop --graph standard", cli.ErrUsage)
	}
	log, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	dir, err := qamodel.Export(*model, *out, qamodel.Options{Mecab: modeldir.EnvOptions(), Revision: *revision, Graph: g}, log)
	if err != nil {
		return err
	}
	log.Info(fmt.Sprintf("exported %s to %s (%s): qa-shard --model %s runs it as it is", *model, *out, g, *out))
	if len(check.Inputs) == 0 {
		return nil
	}
	name := *precision
	if g.Fused && !g.Float16 {
		name = "fused fp32"
	}
	return check.Run(dir, *out, name, run, []string{"--graph", "standard", "--ort-lib", worker.FindLib(*ortLib), "--log-format", logFormat}, log)
}
