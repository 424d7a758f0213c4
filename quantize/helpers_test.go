package quantize

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/onnxpb"
	"qa-shard/internal/testing/testenv"
	"qa-shard/internal/testing/testmodel"
)

// mini is a small hand-built model for the cases BERT does not exercise.
type mini struct {
	opsets  []onnxpb.Opset
	raw     [][]byte // encoded NodeProtos, before nodes
	nodes   []onnxpb.Node
	inits   [][]byte // encoded TensorProtos
	inputs  []string // float32 graph inputs
	outputs []string // float32 graph outputs
	infos   []string // value_info entries
	meta    [2]string
}

func (m mini) bytes() []byte {
	var g []byte
	for _, n := range m.raw {
		g = onnxpb.AppendMessage(g, onnxpb.GraphNode, n)
	}
	for _, n := range m.nodes {
		g = onnxpb.AppendMessage(g, onnxpb.GraphNode, onnxpb.EncodeNode(n))
	}
	g = onnxpb.AppendString(g, 2, "mini")
	for _, t := range m.inits {
		g = onnxpb.AppendMessage(g, onnxpb.GraphInitializer, t)
	}
	for _, s := range m.inputs {
		g = onnxpb.AppendMessage(g, onnxpb.GraphInput, floatValue(s))
	}
	for _, s := range m.outputs {
		g = onnxpb.AppendMessage(g, onnxpb.GraphOutput, floatValue(s))
	}
	for _, s := range m.infos {
		g = onnxpb.AppendMessage(g, onnxpb.GraphValueInfo, floatValue(s))
	}
	b := onnxpb.AppendVarint(nil, onnxpb.ModelIRVersion, 8)
	b = onnxpb.AppendString(b, 2, "mini-test")
	opsets := m.opsets
	if opsets == nil {
		opsets = []onnxpb.Opset{{Version: 14}}
	}
	for _, o := range opsets {
		b = onnxpb.AppendMessage(b, onnxpb.ModelOpsetImport, onnxpb.EncodeOpset(o))
	}
	b = onnxpb.AppendMessage(b, onnxpb.ModelGraph, g)
	if m.meta[0] != "" {
		b = onnxpb.AppendMessage(b, onnxpb.ModelMetadataProps, onnxpb.EncodeEntry(m.meta[0], m.meta[1]))
	}
	return b
}

// floatValue is a ValueInfoProto of a float32 tensor of unknown shape.
func floatValue(name string) []byte {
	tt := onnxpb.AppendVarint(nil, 1, uint64(onnxpb.Float))
	typ := onnxpb.AppendMessage(nil, 1, tt)
	return onnxpb.AppendMessage(onnxpb.AppendString(nil, 1, name), 2, typ)
}

func node(op string, in []string, out ...string) onnxpb.Node {
	return onnxpb.Node{Name: op + "_" + out[0], OpType: op, Inputs: in, Outputs: out}
}

// randomTensor is a float32 initializer of seeded normal values.
func randomTensor(name string, seed uint64, dims ...int64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	n := int64(1)
	for _, d := range dims {
		n *= d
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return onnxpb.EncodeTensor(name, onnxpb.Float, dims, f32(v...))
}

func f32(v ...float32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

func tinyBERT(t *testing.T) []byte {
	t.Helper()
	var buf bytes.Buffer
	if _, err := testmodel.WriteModel(&buf, testmodel.Tiny); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func mustQuantize(t *testing.T, model []byte) ([]byte, Report) {
	t.Helper()
	return mustQuantizeWith(t, model, Options{})
}

func mustQuantizeWith(t *testing.T, model []byte, o Options) ([]byte, Report) {
	t.Helper()
	var out bytes.Buffer
	rep, err := rewriteModel(model, &out, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OutBytes != int64(out.Len()) || rep.InBytes != int64(len(model)) {
		t.Errorf("report says %d -> %d bytes; %d -> %d written", rep.InBytes, rep.OutBytes, len(model), out.Len())
	}
	return out.Bytes(), rep
}

func mustParse(t *testing.T, b []byte) *onnxpb.Model {
	t.Helper()
	m, err := onnxpb.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func initializers(g *onnxpb.Graph) map[string]*onnxpb.Tensor {
	out := map[string]*onnxpb.Tensor{}
	for _, x := range g.Initializers {
		out[x.Name] = x
	}
	return out
}

// tinyModelDir generates the tiny model folder (bert-base's vocabulary)
// in dir/tiny and returns its path.
func tinyModelDir(t *testing.T, dir string) string {
	t.Helper()
	vocabPath, err := testenv.VocabJSON()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(vocabPath)
	if err != nil {
		t.Fatal(err)
	}
	vocab, err := testmodel.ConvertVocab(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "tiny")
	if err := testmodel.Generate(src, testmodel.Tiny, vocab); err != nil {
		t.Fatal(err)
	}
	return src
}
