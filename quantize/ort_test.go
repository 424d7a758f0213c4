package quantize

import (
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/onnxpb"
	"qa-shard/internal/testing/testenv"
	"qa-shard/worker"
)

var ortOnce struct {
	sync.Once
	err error
}

// requireORT loads ONNX Runtime once for the tests that run models.
func requireORT(t testing.TB) {
	t.Helper()
	ortOnce.Do(func() {
		lib, err := testenv.ORTLib()
		if err == nil {
			err = worker.Init(lib)
		}
		ortOnce.err = err
	})
	if ortOnce.err != nil {
		t.Fatal(ortOnce.err)
	}
}

// runFloat runs a model with one float32 input x of the given shape and
// returns its named outputs.
func runFloat(t *testing.T, model []byte, x []float32, shape []int64, outputs ...string) [][]float32 {
	t.Helper()
	return runSession(t, model, false, x, shape, outputs...)
}

// runSession is runFloat, with ONNX Runtime's exact u8 x u8 mode
// (session.x64quantprecision) on where precise says.
func runSession(t *testing.T, model []byte, precise bool, x []float32, shape []int64, outputs ...string) [][]float32 {
	t.Helper()
	requireORT(t)
	so, err := ort.NewSessionOptions()
	if err != nil {
		t.Fatal(err)
	}
	defer so.Destroy()
	if precise {
		if err := so.AddSessionConfigEntry("session.x64quantprecision", "1"); err != nil {
			t.Fatal(err)
		}
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(model, []string{"x"}, outputs, so)
	if err != nil {
		t.Fatalf("ONNX Runtime refuses the model: %v", err)
	}
	defer s.Destroy()
	in, err := ort.NewTensor(ort.NewShape(shape...), x)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Destroy()
	outs := make([]ort.Value, len(outputs))
	if err := s.Run([]ort.Value{in}, outs); err != nil {
		t.Fatal(err)
	}
	res := make([][]float32, len(outs))
	for i, o := range outs {
		res[i] = append([]float32(nil), o.(*ort.Tensor[float32]).GetData()...)
		o.Destroy()
	}
	return res
}

// TestLinearUnderORT runs y = x W + b (random W and a large random b) in
// ONNX Runtime, float32 and quantized in each scheme, against the exact
// product. The int8 result must lie within the worst case of the
// quantization itself: each weight off by at most half its column's step
// s_j/2 (s_j = max|W[:, j]| / L, L the scheme's levels), each activation
// by half the activation step a/2, where ONNX Runtime's
// DynamicQuantizeMatMul uses a = (max(x, 0) - min(x, 0)) / 255. A wrong
// scale, layout, zero point, a lost bias or a saturated product breaks
// that bound by far. Each scheme runs as qa-shard runs it on this CPU
// (s8 in ONNX Runtime's exact mode where the CPU lacks VNNI and AMX), so
// the bound holds on every instruction set.
func TestLinearUnderORT(t *testing.T) {
	for _, sc := range Schemes {
		t.Run(string(sc), func(t *testing.T) { linearUnderORT(t, sc) })
	}
}

func linearUnderORT(t *testing.T, sc Scheme) {
	const rows, k, n = 5, 64, 16
	r := rand.New(rand.NewPCG(11, 12))
	w, b, x := make([]float32, k*n), make([]float32, n), make([]float32, rows*k)
	for i := range w {
		w[i] = float32(r.NormFloat64()) * float32(1+i%n) / 8 // columns of different ranges
	}
	for i := range b {
		b[i] = 10 * float32(r.NormFloat64())
	}
	for i := range x {
		x[i] = float32(r.NormFloat64()) + 0.5
	}
	m := mini{
		nodes:   []onnxpb.Node{node("MatMul", []string{"x", "W"}, "xw"), node("Add", []string{"b", "xw"}, "y")},
		inits:   [][]byte{onnxpb.EncodeTensor("W", onnxpb.Float, []int64{k, n}, f32(w...)), onnxpb.EncodeTensor("b", onnxpb.Float, []int64{n}, f32(b...))},
		inputs:  []string{"x"},
		outputs: []string{"y"},
	}
	q, rep := mustQuantizeWith(t, m.bytes(), Options{Scheme: sc})
	if rep.Folded != 1 {
		t.Fatalf("the bias was not folded: %+v", rep)
	}
	fp := runFloat(t, m.bytes(), x, []int64{rows, k}, "y")[0]
	i8 := runSession(t, q, sc == SchemeS8 && cpuSet.SaturatesU8S8(), x, []int64{rows, k}, "y")[0]

	lo, hi := 0.0, 0.0
	for _, v := range x {
		lo, hi = min(lo, float64(v)), max(hi, float64(v))
	}
	halfA := (hi - lo) / 255 / 2
	colMax := make([]float64, n)
	for i, v := range w {
		colMax[i%n] = max(colMax[i%n], math.Abs(float64(v)))
	}
	var worst, used float64
	for i := range rows {
		for j := range n {
			exact, bound := float64(b[j]), 1e-4
			for kk := range k {
				xv, wv := float64(x[i*k+kk]), float64(w[kk*n+j])
				exact += xv * wv
				halfW := colMax[j] / float64(sc.levels()) / 2
				bound += math.Abs(xv)*halfW + halfA*math.Abs(wv) + halfA*halfW + 1e-6*math.Abs(xv*wv)
			}
			if d := math.Abs(float64(fp[i*n+j]) - exact); d > 1e-3 {
				t.Fatalf("float32 y[%d,%d] = %g, exact %g", i, j, fp[i*n+j], exact)
			}
			d := math.Abs(float64(i8[i*n+j]) - exact)
			if d > bound {
				t.Errorf("int8 y[%d,%d] = %g, exact %g: off by %g, more than quantization allows (%g)", i, j, i8[i*n+j], exact, d, bound)
			}
			worst, used = max(worst, d), max(used, d/bound)
		}
	}
	if worst == 0 {
		t.Error("int8 result equals the exact one everywhere: was anything quantized?")
	}
	t.Logf("int8 %s on %s: max |error| %.4f; at most %.0f%% of the worst case", sc, cpuSet, worst, 100*used)
}

// TestSharedAndUnfoldableUnderORT: the graph of TestSharedAndUnfoldable
// loads in ONNX Runtime and every output stays close to float32.
func TestSharedAndUnfoldableUnderORT(t *testing.T) {
	m := mini{
		nodes: []onnxpb.Node{
			node("MatMul", []string{"x", "W"}, "y1"), node("Add", []string{"y1", "b"}, "z1"),
			node("MatMul", []string{"x", "W"}, "y2"), node("Add", []string{"b", "y2"}, "z2"), node("Relu", []string{"y2"}, "r2"),
			node("MatMul", []string{"x", "V"}, "y3"), node("Identity", []string{"V"}, "v"),
		},
		inits:   [][]byte{randomTensor("W", 1, 4, 3), randomTensor("b", 2, 3), randomTensor("V", 3, 4, 3)},
		inputs:  []string{"x"},
		outputs: []string{"z1", "z2", "r2", "y3", "v"},
	}
	q, _ := mustQuantize(t, m.bytes())
	x := []float32{0.5, -1, 2, 0.25, 1, 1, -0.5, 0}
	names := []string{"z1", "z2", "r2", "y3", "v"}
	fp := runFloat(t, m.bytes(), x, []int64{2, 4}, names...)
	i8 := runFloat(t, q, x, []int64{2, 4}, names...)
	for o, name := range names {
		for i := range fp[o] {
			if d := math.Abs(float64(fp[o][i] - i8[o][i])); d > 0.1 {
				t.Errorf("%s[%d]: float32 %g, int8 %g", name, i, fp[o][i], i8[o][i])
			}
		}
	}
	for i := range fp[4] {
		if fp[4][i] != i8[4][i] {
			t.Errorf("v = Identity(V) changed: the float32 V must be kept as it was")
		}
	}
}
