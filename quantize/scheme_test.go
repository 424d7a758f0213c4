package quantize

import (
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/onnxpb"
	"qa-shard/worker"
)

// TestColumnsSchemes: in every scheme each weight dequantizes to within
// half a step of itself, every column reaches the scheme's levels (127,
// or 64 for s7) and never goes past them, and u8 stores q+128.
func TestColumnsSchemes(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	const k, n = 200, 40
	w := make([]float32, k*n)
	for i := range w {
		w[i] = float32(r.NormFloat64()) * float32(1+i%n) * 0.01
	}
	for _, sc := range Schemes {
		q, scale, err := columns(w, k, n, sc)
		if err != nil {
			t.Fatal(err)
		}
		levels, zero := int(sc.levels()), int(sc.zeroPoint())
		peak := make([]int, n)
		for i, b := range q {
			v := int(int8(b))
			if sc == SchemeU8 {
				v = int(b) - zero
			}
			j := i % n
			if v > levels || v < -levels {
				t.Fatalf("%s: w[%d] quantized to %d, outside [-%d, %d]", sc, i, v, levels, levels)
			}
			peak[j] = max(peak[j], int(math.Abs(float64(v))))
			if e := math.Abs(float64(w[i]) - float64(v)*float64(scale[j])); e > float64(scale[j])*(0.5+1e-5) {
				t.Fatalf("%s: w[%d] = %g dequantizes to %g, off by more than half a step", sc, i, w[i], float32(v)*scale[j])
			}
		}
		for j, p := range peak {
			if p != levels {
				t.Errorf("%s: column %d peaks at %d, not %d", sc, j, p, levels)
			}
		}
	}
	if q, _, _ := columns([]float32{-1, 1}, 1, 2, SchemeU8); q[0] != 1 || q[1] != 255 {
		t.Errorf("u8 stores -1 and 1 of a column as %d and %d, want 1 and 255 (q+128)", q[0], q[1])
	}
}

func TestUnknownSchemeRefused(t *testing.T) {
	_, err := rewriteModel(tinyBERT(t), new(strings.Builder), Options{Scheme: "s9"})
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"s9"`) || !strings.Contains(err.Error(), "choose s7") {
		t.Fatalf("scheme s9: %v; want ErrUnsupported listing the schemes", err)
	}
}

// saturating is y = x W where every activation quantizes to 255 and every
// weight of column 0 to the scheme's top level: a u8 x s8 kernel that adds
// pairs of products in 16 bits (AVX2, AVX-512 without VNNI) saturates on
// every pair in s8 (2 x 255 x 127 > 32,767), never in s7 (2 x 255 x 64).
func saturating() (model []byte, x []float32, shape []int64) {
	const k, n = 64, 4
	w := make([]float32, k*n)
	for i := range w {
		w[i] = float32(1 + i%n) // column j all equal: each quantizes to the top level
	}
	m := mini{
		nodes:   []onnxpb.Node{node("MatMul", []string{"x", "W"}, "y")},
		inits:   [][]byte{onnxpb.EncodeTensor("W", onnxpb.Float, []int64{k, n}, f32(w...))},
		inputs:  []string{"x"},
		outputs: []string{"y"},
	}
	x = make([]float32, 2*k)
	for i := range x {
		x[i] = 2
	}
	return m.bytes(), x, []int64{2, k}
}

// TestSchemesOnThisCPU: what each scheme gives on this CPU, as qa-shard
// runs it. On every CPU the s8 model run as qa-shard runs it gives the
// same bits as the u8 model (the same integer products, exact), and s7
// and u8 come out right without ONNX Runtime's exact mode. Then, by
// instruction set: without VNNI and AMX, the s8 model run plainly (as any
// other program would run it) is wrong by far, which is why qa-shard
// turns on the exact mode for it (worker.Model.PreciseInt8); with VNNI or
// AMX it is right as it is, so the exact mode (slower here too) stays off.
func TestSchemesOnThisCPU(t *testing.T) {
	model, x, shape := saturating()
	exact := runFloat(t, model, x, shape, "y")[0]
	got := map[Scheme][]float32{}
	for _, sc := range Schemes {
		q, _ := mustQuantizeWith(t, model, Options{Scheme: sc})
		got[sc] = runSession(t, q, sc == SchemeS8 && cpuSet.SaturatesU8S8(), x, shape, "y")[0]
		if sc == SchemeS8 {
			got["s8 plain"] = runSession(t, q, false, x, shape, "y")[0]
		}
	}
	for _, sc := range Schemes {
		if d := maxRelError(got[sc], exact); d > 0.01 {
			t.Errorf("%s on %s: off by %.1f%% of the exact product", sc, cpuSet, 100*d)
		}
	}
	if !equalBits(got[SchemeS8], got[SchemeU8]) {
		t.Errorf("on %s the s8 model as qa-shard runs it gives %v, the u8 model %v: the same integer products should give the same bits", cpuSet, got[SchemeS8], got[SchemeU8])
	}
	plain := maxRelError(got["s8 plain"], exact)
	if cpuSet.SaturatesU8S8() {
		if plain < 0.1 {
			t.Errorf("this CPU (%s) has neither VNNI nor AMX, yet the s8 model run plainly is within %.1f%% of the exact product: the saturation this scheme guards against did not show", cpuSet, 100*plain)
		}
		t.Logf("%s: the s8 model run plainly is off by %.0f%%; in the exact mode, and as s7 or u8, it is right", cpuSet, 100*plain)
		return
	}
	if !equalBits(got["s8 plain"], got[SchemeU8]) {
		t.Errorf("this CPU (%s) has VNNI or AMX, yet the s8 model run plainly differs from u8 (off by %.1f%%)", cpuSet, 100*plain)
	}
	t.Logf("%s: the s8 model is exact as it is (no exact mode needed)", cpuSet)
}

// maxRelError is the largest |got - want| over the largest |want|.
func maxRelError(got, want []float32) float64 {
	var d, top float64
	for i := range want {
		d = max(d, math.Abs(float64(got[i]-want[i])))
		top = max(top, math.Abs(float64(want[i])))
	}
	return d / top
}

// TestModelsSayTheirScheme: each scheme's folder states it in its
// metadata, and worker finds full-range int8 weights in the s8 folder
// only, from the weights themselves (so a model quantized elsewhere is
// judged the same way), and asks for the exact mode only on a CPU that
// would saturate. Run through worker replicas as a run runs them, the s8
// and u8 copies give the same logits, bit for bit, on every CPU.
func TestModelsSayTheirScheme(t *testing.T) {
	requireORT(t)
	dir := t.TempDir()
	src := tinyModelDir(t, dir)
	logits := map[Scheme][]float32{}
	for _, sc := range Schemes {
		dst := filepath.Join(dir, string(sc))
		if _, err := Dir(src, dst, Options{Scheme: sc}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dst, "model.onnx"))
		if err != nil {
			t.Fatal(err)
		}
		if meta := mustParse(t, b).Metadata[MetadataKey]; !strings.Contains(meta, "scheme "+string(sc)+":") {
			t.Errorf("%s: metadata %q does not name the scheme", sc, meta)
		}
		m, err := worker.OpenModel(dst)
		if err != nil {
			t.Fatal(err)
		}
		if full := m.FullRangeS8 != ""; full != (sc == SchemeS8) {
			t.Errorf("%s: FullRangeS8 = %q", sc, m.FullRangeS8)
		}
		for _, c := range []struct {
			name string
			sat  bool
		}{{"AVX2", true}, {"AVX-512 VNNI", false}} {
			s := cpuSet
			s.VNNI, s.AMX, s.Unknown = !c.sat, false, false
			if got, want := m.PreciseInt8(s), c.sat && sc == SchemeS8; got != want {
				t.Errorf("%s on %s: PreciseInt8 %v, want %v", sc, c.name, got, want)
			}
		}
		_, r := openReplica(t, dst, 1)
		ws := realWindows(t, m.TokenizerPath)
		l := runBatch(t, r, batchOf(0, ws[0]))
		logits[sc] = append(l.Start, l.End...)
	}
	if !equalBits(logits[SchemeS8], logits[SchemeU8]) {
		t.Errorf("on %s the s8 and u8 copies give different logits through worker replicas (max |diff| %g): the exact mode is not on where it is needed",
			cpuSet, maxRelError(logits[SchemeS8], logits[SchemeU8]))
	}
}

// TestExpectedISA: where the caller says which instruction set the tests
// must run on ($QA_SHARD_EXPECT_ISA, set by make test-int8-isa for its
// emulated CPU), this CPU is that one, so an emulator that passed the
// host's features through would not go unnoticed.
func TestExpectedISA(t *testing.T) {
	want := os.Getenv("QA_SHARD_EXPECT_ISA")
	if want == "" {
		t.Skipf("QA_SHARD_EXPECT_ISA is not set; this CPU: %s", cpuSet)
	}
	if got := cpuSet.String(); got != want {
		t.Fatalf("the tests run on %s, not on the %s CPU they were meant for", got, want)
	}
}
