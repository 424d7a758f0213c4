package quantize

import (
	"fmt"
	"strings"
	"time"

	"go.uber.org/zap"

	"qa-shard/internal/isa"
	"qa-shard/worker"
)

// What qa-shard says about an int8 model: quantize's result and check, and
// the warning a run gives a full-range int8 model on a CPU that would
// saturate it.

// Log says what Dir wrote to out, in took.
func (r Report) Log(log *zap.Logger, out string, took time.Duration) {
	if len(r.Removed) > 0 {
		log.Info(fmt.Sprintf("removed the temporary folder(s) an earlier quantize into %s left when it was killed: %s", out, strings.Join(r.Removed, ", ")),
			zap.Strings("removed", r.Removed))
	}
	log.Info(fmt.Sprintf("wrote %s: %d MatMuls now int8 (%d with the bias folded in, %d left float32), %d attention blocks fused, model.onnx %.1f MB -> %.1f MB",
		out, r.MatMuls, r.Folded, r.Float, r.Attention, float64(r.InBytes)/1e6, float64(r.OutBytes)/1e6), zap.Int("attention_fused", r.Attention),
		zap.String("out", out), zap.Duration("took", took), zap.Int("matmuls_int8", r.MatMuls), zap.Int("bias_folded", r.Folded),
		zap.Int("matmuls_float", r.Float), zap.Int64("int8_weights", r.Weights), zap.Int64("bytes_in", r.InBytes), zap.Int64("bytes_out", r.OutBytes),
		zap.Strings("copied", r.Copied), zap.Strings("not_copied_subfolders", r.Ignored))
}

// Log says how the copy's logits on the sample window compare with the
// original's on this CPU (instruction set cpu), with scheme's caveat.
func (s Sample) Log(log *zap.Logger, cpu isa.Set, scheme Scheme) {
	log.Info(fmt.Sprintf("checked on this CPU (%s, %s): ONNX Runtime %s loads it; on a sample window of %d tokens its logits are within %.4f of float32 (whose logits span %.2f)",
		isa.CPUName(), cpu, worker.Version(), s.Tokens, s.MaxDiff, s.Span),
		zap.String("onnxruntime", worker.Version()), zap.String("cpu_isa", cpu.String()), zap.Int("sample_tokens", s.Tokens), zap.Float64("max_logit_diff", s.MaxDiff), zap.Float64("logit_span", s.Span))
	if scheme == SchemeS8 {
		log.Warn("scheme s8 is right only on CPUs with VNNI or AMX: elsewhere qa-shard runs it in ONNX Runtime's slower exact mode, and other programs get wrong logits; for a cluster of mixed CPUs use the default (s7)")
	}
}

// WarnPrecise says, once per run, that the model's full-range int8
// weights would saturate on a CPU of set cpu (this one) and that its
// replicas run in ONNX Runtime's exact (slower) mode, and what to do for
// full speed; nothing for any other model or CPU.
func WarnPrecise(log *zap.Logger, m *worker.Model, cpu isa.Set) {
	if !m.PreciseInt8(cpu) {
		return
	}
	log.Warn(fmt.Sprintf("this int8 model stores full-range int8 weights (%s, in [-127, 127]: scheme s8 or another quantizer's default), which this CPU (%s, %s: no VNNI, no AMX) would multiply with 16-bit saturation into wrong logits; its sessions use ONNX Runtime's exact u8 x u8 mode instead, which is slower: for full int8 speed here, quantize the float32 model again with `qa-shard quantize` without --scheme (s7, right on every x86 CPU)",
		m.FullRangeS8, isa.CPUName(), cpu), zap.String("cpu_isa", cpu.String()), zap.String("weight", m.FullRangeS8))
}
