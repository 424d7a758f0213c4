package quantize

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/testing/testenv"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/worker"
)

// realWindows cuts the project's own documentation (English prose: the
// README and the pages under docs/) into the 384-token windows a run
// would feed the model.
func realWindows(t testing.TB, tokenizerPath string) []qa.Window {
	t.Helper()
	tok, err := tokenizer.Load(tokenizerPath)
	if err != nil {
		t.Fatal(err)
	}
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []qa.Window
	for _, doc := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := qa.Windows(tok.Encode("How does a run resume after a crash?"), tok.Encode(string(text)), tok.Template(), qa.DefaultSettings())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ws...)
	}
	return out
}

// batchOf lays windows out as one batch padded to the longest.
func batchOf(pad int32, ws ...qa.Window) qa.Batch {
	l := 0
	for _, w := range ws {
		l = max(l, len(w.IDs))
	}
	b := qa.Batch{Rows: len(ws), Len: l, InputIDs: make([]int64, len(ws)*l), AttentionMask: make([]int64, len(ws)*l), TypeIDs: make([]int64, len(ws)*l)}
	for r, w := range ws {
		for i := range b.Len {
			k := r*l + i
			if i >= len(w.IDs) {
				b.InputIDs[k] = int64(pad)
				continue
			}
			b.InputIDs[k], b.AttentionMask[k], b.TypeIDs[k] = int64(w.IDs[i]), 1, int64(w.TypeIDs[i])
		}
	}
	return b
}

func runBatch(t testing.TB, r *worker.Replica, b qa.Batch) qa.Logits {
	t.Helper()
	l, err := r.Run(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// deviation is the largest |int8 - float32| over a window's start and end
// logits, and that as a share of the span of its float32 logits.
func deviation(fp, i8 qa.Logits) (abs, rel float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, p := range [][2][]float32{{fp.Start, i8.Start}, {fp.End, i8.End}} {
		for i, v := range p[0] {
			abs = max(abs, math.Abs(float64(v-p[1][i])))
			lo, hi = min(lo, float64(v)), max(hi, float64(v))
		}
	}
	return abs, abs / (hi - lo)
}

func openReplica(t testing.TB, dir string, threads int) (*worker.Model, *worker.Replica) {
	t.Helper()
	m, err := worker.OpenModel(dir)
	if err != nil {
		t.Fatal(err)
	}
	r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: filepath.Base(dir), Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return m, r
}

// TestTinyBERTLogits quantizes the generated tiny model folder and runs
// real windows through both. Bound: every window's int8 logits within 2.5%
// of the span of its float32 logits. Measured here: 0.7% (this CPU has
// AVX-512 VNNI; CPUs without it multiply u8 x s8 pairs with 16-bit
// saturation, hence the margin); weights quantized with the scale of the
// neighbouring column give 3.4%. TestLinearUnderORT bounds the kernel
// exactly, biases included (the generated model's biases are zero). The
// test also shows why qa-shard runs int8 one unpadded window per batch:
// in a padded batch a window's int8 logits change with its neighbour (the
// activation scales are per tensor, and the fused attention has no
// padding mask).
func TestTinyBERTLogits(t *testing.T) {
	requireORT(t)
	dir := t.TempDir()
	src, dst := tinyModelDir(t, dir), filepath.Join(dir, "tiny-int8")
	if _, err := Dir(src, dst, Options{}); err != nil {
		t.Fatal(err)
	}
	fm, fr := openReplica(t, src, 1)
	qm, qr := openReplica(t, dst, 1)
	if fm.QuantizedActivations || !qm.QuantizedActivations {
		t.Fatalf("QuantizedActivations: float32 model %v, int8 model %v", fm.QuantizedActivations, qm.QuantizedActivations)
	}
	ws := realWindows(t, qm.TokenizerPath)
	var worstAbs, worstRel float64
	for _, w := range ws {
		b := batchOf(0, w)
		fp, i8 := runBatch(t, fr, b), runBatch(t, qr, b)
		abs, rel := deviation(fp, i8)
		worstAbs, worstRel = max(worstAbs, abs), max(worstRel, rel)
		if again := runBatch(t, qr, b); !equalBits(again.Start, i8.Start) || !equalBits(again.End, i8.End) {
			t.Fatal("the same int8 window run twice gave different logits")
		}
	}
	if worstRel > 0.025 {
		t.Errorf("int8 logits differ from float32 by up to %.4f, %.1f%% of a window's logit span (limit 2.5%%)", worstAbs, 100*worstRel)
	}
	t.Logf("%d windows: int8 vs float32 max |diff| %.4f, at most %.2f%% of a window's logit span", len(ws), worstAbs, 100*worstRel)

	long, short := ws[0], ws[len(ws)-1]
	if len(short.IDs) == len(long.IDs) {
		t.Fatal("the last window is not shorter: the trap below needs padding")
	}
	alone := runBatch(t, qr, batchOf(0, short))
	both := runBatch(t, qr, batchOf(0, short, long))
	n := len(short.IDs)
	shift, _ := deviation(alone, qa.Logits{Start: both.Start[:n], End: both.End[:n]})
	if shift == 0 {
		t.Error("int8 logits of a window are the same alone and in a padded batch: per-tensor activation scales no longer make batches interfere, and the scheduler's one-window batches could be relaxed")
	}
	t.Logf("the same window alone and padded beside another: int8 logits move by %.4f", shift)
}

func equalBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}
