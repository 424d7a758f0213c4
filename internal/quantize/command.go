package quantize

import (
	"fmt"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
)

const help = `Usage: qa-shard quantize --model DIR --out DIR [--scheme s7|s8|u8]

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
set (named in the result).`

// Request is what `qa-shard quantize` was asked.
type Request struct {
	Model, Out          string // the float32 folder, the new int8 one
	ORTLib              string // ONNX Runtime library for the check ("": as for run)
	Options             Options
	LogFormat, LogLevel string
}

// Parse reads the quantize subcommand's flags (pflag.ErrHelp for --help).
func Parse(args []string) (Request, error) {
	var r Request
	fs := pflag.NewFlagSet("qa-shard quantize", pflag.ContinueOnError)
	fs.StringVar(&r.Model, "model", "", "model folder exported by optimum, float32 (model.onnx, tokenizer.json, config.json)")
	fs.StringVar(&r.Out, "out", "", "new folder for the int8 copy; must not exist, or be empty")
	fs.StringVar(&r.ORTLib, "ort-lib", "", "ONNX Runtime library for checking the result (default as for run; without one the check is skipped)")
	fs.BoolVar(&r.Options.KeepAttention, "keep-attention", false, "leave attention as exported, padding mask included (for padded batches elsewhere; 6-8% slower on a small model)")
	scheme := fs.String("scheme", string(SchemeS7), "how int8 weights are stored: s7 (right on every x86 CPU), s8 (VNNI or AMX CPUs only) or u8 (see below)")
	cli.AddLogFlags(fs, &r.LogFormat, &r.LogLevel)
	if err := cli.Parse(fs, args, help); err != nil {
		return r, err
	}
	if r.Model == "" || r.Out == "" || fs.NArg() > 0 {
		return r, fmt.Errorf("%w: pass --model DIR (the float32 export) and --out DIR (a new folder), nothing else", cli.ErrUsage)
	}
	r.Options.Scheme = Scheme(*scheme)
	return r, nil
}
