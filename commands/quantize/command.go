// Package quantize is `qa-shard quantize`: it writes an int8 copy of a
// model folder (the top-level package quantize rewrites the graph),
// checks it under ONNX Runtime and, with --check-input, checks its answers
// against the float32 model's on the user's documents.
package quantize

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"qa-shard/agreement"
	"qa-shard/internal/cli"
	"qa-shard/internal/isa"
	"qa-shard/internal/logs"
	rewrite "qa-shard/quantize"
	"qa-shard/worker"
)

const help = `Usage: qa-shard quantize --model DIR --out DIR [--scheme s7|s8|u8]
                         [--check-input FILE [--check-docs N] [--question Q]...]

Writes an int8 copy of an optimum-exported model folder for the CPU: every
MatMul with a float32 weight becomes DynamicQuantizeMatMul (int8 weights, a
scale per output column, bias folded in), each attention core it recognizes
one MultiHeadAttention (flash kernel, no padding mask); other files are
copied. Pass it to --model unchanged: qa-shard runs it one unpadded window
per batch, so answers stay identical whatever the timing.

--scheme decides how weights are stored, and so which CPUs multiply them
right (the model's metadata says which was used):
  s7  (default) int8 in [-64, 64]: right and at full int8 speed on every
      x86-64 CPU (AVX2, AVX-512, VNNI, AMX), the same answers on all of
      them; one bit less weight precision than s8
  s8  int8 in [-127, 127]: for clusters whose CPUs all have VNNI or AMX.
      CPUs without (AVX2, AVX-512 without VNNI) would saturate 16-bit sums
      and give wrong answers: qa-shard warns there and runs it in ONNX
      Runtime's exact mode, which is slower than s7
  u8  uint8, zero point 128: full precision and right on every CPU, also
      in other programs; slower than s7 where the CPU has VNNI
Where an ONNX Runtime library is found, the copy is loaded and its logits on
a sample window are compared with the original's, on this CPU's instruction
set (named in the result).

--check-input FILE (files, folders or globs, as --input) checks the answers
on your own documents: the first --check-docs documents (default 100), with
their own questions and --question / --questions-file, are answered by the
float32 model and by the copy (default settings, --check-devices), and the
copy's answers are scored against float32's as SQuAD scores against gold:
exact match, F1, identical answers and score drift. The copy passes when
its F1 is at least --check-min-f1 (default 99: MLPerf's rule for BERT, 99%
of float32's F1, float32 scoring 100 against its own answers); below it
quantize exits 3, the copy kept, so a script can stop before a long run.`

// request is what `qa-shard quantize` was asked.
type request struct {
	Model, Out          string // the float32 folder, the new int8 one
	ORTLib              string // ONNX Runtime library for the check ("": as for run)
	Options             rewrite.Options
	LogFormat, LogLevel string
	// Check is the answer check on the user's documents; no CheckInput,
	// no check.
	Check agreement.Request
}

// parse reads the quantize subcommand's flags (pflag.ErrHelp for --help).
func parse(args []string) (request, error) {
	var r request
	fs := pflag.NewFlagSet("qa-shard quantize", pflag.ContinueOnError)
	fs.StringVar(&r.Model, "model", "", "model folder exported by optimum, float32 (model.onnx, tokenizer.json, config.json)")
	fs.StringVar(&r.Out, "out", "", "new folder for the int8 copy; must not exist, or be empty")
	fs.StringVar(&r.ORTLib, "ort-lib", "", "ONNX Runtime library for checking the result (default as for run; without one the check is skipped)")
	fs.BoolVar(&r.Options.KeepAttention, "keep-attention", false, "leave attention as exported, padding mask included (for padded batches elsewhere; 6-8% slower on a small model)")
	scheme := fs.String("scheme", string(rewrite.SchemeS7), "how int8 weights are stored: s7 (right on every x86 CPU), s8 (VNNI or AMX CPUs only) or u8 (see below)")
	r.Check.AddFlags(fs)
	cli.AddLogFlags(fs, &r.LogFormat, &r.LogLevel)
	if err := cli.Parse(fs, args, help); err != nil {
		return r, err
	}
	if r.Model == "" || r.Out == "" || fs.NArg() > 0 {
		return r, fmt.Errorf("%w: pass --model DIR (the float32 export) and --out DIR (a new folder), nothing else", cli.ErrUsage)
	}
	if err := r.Check.Validate(fs); err != nil {
		return r, err
	}
	r.Options.Scheme = rewrite.Scheme(*scheme)
	return r, nil
}

// Run is `qa-shard quantize`: it writes a dynamically quantized int8 copy of a model folder,
// then, where ONNX Runtime is at hand, checks that the copy loads and says
// how far its logits are from the original's on a sample window.
//
// run is the run subcommand, which answers the sample of --check-input.
func Run(args []string, run func(args []string) error) error {
	r, err := parse(args)
	if err != nil {
		return err
	}
	log, err := logs.New(r.LogFormat, r.LogLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	start := time.Now()
	rep, err := rewrite.Dir(r.Model, r.Out, r.Options)
	if err != nil {
		return err
	}
	rep.Log(log, r.Out, time.Since(start))
	lib := worker.FindLib(r.ORTLib)
	if lib == "" && os.Getenv(worker.EnvORTLib) == "" {
		if len(r.Check.Inputs) > 0 {
			return fmt.Errorf("%w: --check-input answers with ONNX Runtime, and no library was found: pass --ort-lib PATH or set %s (%s is written)", cli.ErrUsage, worker.EnvORTLib, r.Out)
		}
		log.Warn(fmt.Sprintf("not checked with ONNX Runtime: no library found (pass --ort-lib PATH or set %s)", worker.EnvORTLib))
		return nil
	}
	if err := worker.Init(lib); err != nil {
		return err
	}
	c, err := rewrite.Check(r.Model, r.Out)
	if err != nil {
		return err
	}
	c.Log(log, isa.Detect(), r.Options.Scheme)
	if len(r.Check.Inputs) == 0 {
		return nil
	}
	return checkAnswers(r, run, log)
}

// checkAnswers runs the answer check (--check-input): the sample is
// answered by two runs of this program, the float32 model's and the
// copy's.
func checkAnswers(r request, runCmd func([]string) error, log *zap.Logger) error {
	return r.Check.Run(r.Model, r.Out, "int8", runCmd, []string{"--ort-lib", worker.FindLib(r.ORTLib), "--log-format", r.LogFormat}, log)
}
