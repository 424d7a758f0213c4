package main

import (
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"
	"go.uber.org/zap"

	"qa-shard/internal/cli"
	"qa-shard/internal/isa"
	"qa-shard/internal/logs"
	"qa-shard/internal/quantize"
	"qa-shard/worker"
)

const quantizeHelp = `Usage: qa-shard quantize --model DIR --out DIR [--scheme s7|s8|u8]

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

// quantizeCmd writes a dynamically quantized int8 copy of a model folder,
// then, where ONNX Runtime is at hand, checks that the copy loads and says
// how far its logits are from the original's on a sample window.
func quantizeCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard quantize", pflag.ContinueOnError)
	model := fs.String("model", "", "model folder exported by optimum, float32 (model.onnx, tokenizer.json, config.json)")
	out := fs.String("out", "", "new folder for the int8 copy; must not exist, or be empty")
	ortLib := fs.String("ort-lib", "", "ONNX Runtime library for checking the result (default as for run; without one the check is skipped)")
	keep := fs.Bool("keep-attention", false, "leave attention as exported, padding mask included (for padded batches elsewhere; 6-8% slower on a small model)")
	scheme := fs.String("scheme", string(quantize.SchemeS7), "how int8 weights are stored: s7 (right on every x86 CPU), s8 (VNNI or AMX CPUs only) or u8 (see below)")
	var logFormat, logLevel string
	cli.AddLogFlags(fs, &logFormat, &logLevel)
	if err := cli.Parse(fs, args, quantizeHelp); err != nil {
		return err
	}
	if *model == "" || *out == "" || fs.NArg() > 0 {
		return fmt.Errorf("%w: pass --model DIR (the float32 export) and --out DIR (a new folder), nothing else", errUsage)
	}
	log, err := logs.New(logFormat, logLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	start := time.Now()
	rep, err := quantize.Dir(*model, *out, quantize.Options{KeepAttention: *keep, Scheme: quantize.Scheme(*scheme)})
	if err != nil {
		return err
	}
	log.Info(fmt.Sprintf("wrote %s: %d MatMuls now int8 (%d with the bias folded in, %d left float32), %d attention blocks fused, model.onnx %.1f MB -> %.1f MB",
		*out, rep.MatMuls, rep.Folded, rep.Float, rep.Attention, float64(rep.InBytes)/1e6, float64(rep.OutBytes)/1e6), zap.Int("attention_fused", rep.Attention),
		zap.String("out", *out), zap.Duration("took", time.Since(start)), zap.Int("matmuls_int8", rep.MatMuls), zap.Int("bias_folded", rep.Folded),
		zap.Int("matmuls_float", rep.Float), zap.Int64("int8_weights", rep.Weights), zap.Int64("bytes_in", rep.InBytes), zap.Int64("bytes_out", rep.OutBytes),
		zap.Strings("copied", rep.Copied), zap.Strings("not_copied_subfolders", rep.Ignored))
	lib := worker.FindLib(*ortLib)
	if lib == "" && os.Getenv(worker.EnvORTLib) == "" {
		log.Warn(fmt.Sprintf("not checked with ONNX Runtime: no library found (pass --ort-lib PATH or set %s)", worker.EnvORTLib))
		return nil
	}
	if err := worker.Init(lib); err != nil {
		return err
	}
	c, err := quantize.Check(*model, *out)
	if err != nil {
		return err
	}
	cpu := isa.Detect()
	log.Info(fmt.Sprintf("checked on this CPU (%s, %s): ONNX Runtime %s loads it; on a sample window of %d tokens its logits are within %.4f of float32 (whose logits span %.2f)",
		isa.Model(), cpu, worker.Version(), c.Tokens, c.MaxDiff, c.Span),
		zap.String("onnxruntime", worker.Version()), zap.String("cpu_isa", cpu.String()), zap.Int("sample_tokens", c.Tokens), zap.Float64("max_logit_diff", c.MaxDiff), zap.Float64("logit_span", c.Span))
	if *scheme == string(quantize.SchemeS8) {
		log.Warn("scheme s8 is right only on CPUs with VNNI or AMX: elsewhere qa-shard runs it in ONNX Runtime's slower exact mode, and other programs get wrong logits; for a cluster of mixed CPUs use the default (s7)")
	}
	return nil
}

// warnPreciseInt8 says, once per run, that the model's full-range int8
// weights would saturate on a CPU of set cpu (this one) and that its
// replicas run in ONNX Runtime's exact (slower) mode, and what to do for
// full speed.
func warnPreciseInt8(log *zap.Logger, m *worker.Model, cpu isa.Set) {
	if !m.PreciseInt8(cpu) {
		return
	}
	log.Warn(fmt.Sprintf("this int8 model stores full-range int8 weights (%s, in [-127, 127]: scheme s8 or another quantizer's default), which this CPU (%s, %s: no VNNI, no AMX) would multiply with 16-bit saturation into wrong logits; its sessions use ONNX Runtime's exact u8 x u8 mode instead, which is slower: for full int8 speed here, quantize the float32 model again with `qa-shard quantize` without --scheme (s7, right on every x86 CPU)",
		m.FullRangeS8, isa.Model(), cpu), zap.String("cpu_isa", cpu.String()), zap.String("weight", m.FullRangeS8))
}
