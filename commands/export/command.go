// Package export is `qa-shard export`: it writes the ONNX graph qa-shard
// builds from a checkpoint (a save_pretrained folder or a Hub id) as an
// optimum-style folder, for people who want to inspect it or run it
// elsewhere.
package export

import (
	"fmt"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/internal/logs"
	"qa-shard/qamodel"
	"qa-shard/tokenizer/modeldir"
)

const help = `Usage: qa-shard export --model DIR|ORG/NAME [--revision REV] --out DIR

Writes the graph qa-shard runs for a checkpoint (a folder as save_pretrained
writes it: config.json, model.safetensors or pytorch_model.bin, the
tokenizer's files; or a Hugging Face Hub id) as a folder like an optimum
export: model.onnx (model.onnx.data beside it past 2 GiB), config.json and
the tokenizer's files. --out must be new or empty. The graph uses ONNX
Runtime's fused operators (Attention, SkipLayerNormalization, BiasGelu,
EmbedLayerNormalization), as a run does; --standard-ops writes ONNX's
own operators only, for other runtimes. A run does this by
itself (and caches it: --model-cache); export is for looking at the graph
or running it elsewhere.`

// Run is `qa-shard export`.
func Run(args []string) error {
	fs := pflag.NewFlagSet("qa-shard export", pflag.ContinueOnError)
	model := fs.String("model", "", "the checkpoint: a save_pretrained folder or a Hub id")
	out := fs.String("out", "", "the folder to write (new or empty)")
	revision := fs.String("revision", "", "with a Hub id: the branch, tag or commit (default main)")
	standard := fs.Bool("standard-ops", false, "write ONNX's standard operators only, unfused, as an optimum export is (for tools other than ONNX Runtime); by default the graph uses ONNX Runtime's fused operators, as a run does")
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
	log, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	if err := qamodel.Export(*model, *out, qamodel.Options{Mecab: modeldir.EnvOptions(), Revision: *revision, Graph: qamodel.Graph{StandardOps: *standard}}, log); err != nil {
		return err
	}
	log.Info(fmt.Sprintf("exported %s to %s: qa-shard --model %s runs it as it is", *model, *out, *out))
	return nil
}
