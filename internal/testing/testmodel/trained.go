package testmodel

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"

	"qa-shard/internal/errkind"
)

// Weights are trained parameters of a BertForQuestionAnswering under
// Hugging Face's names and layouts (a torch.nn.Linear weight is [out, in]),
// read from a safetensors file such as transformers writes. WithWeights
// builds the graph around them instead of seeded random values.
type Weights struct {
	tensors map[string]floatTensor
	meta    map[string]string
	used    map[string]bool // what a graph took (Unused)
}

type floatTensor struct {
	shape []int64
	data  []float32
}

// ErrWeights marks a weights file that does not describe a BERT model the
// graph builder can use.
var ErrWeights = errkind.NewUser("bad weights file")

// ReadWeights reads a safetensors file (F32 or F16 tensors); integer
// tensors, if any, are refused.
func ReadWeights(path string) (*Weights, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	w, err := parseSafetensors(raw, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return w, nil
}

type stEntry struct {
	DType   string  `json:"dtype"`
	Shape   []int64 `json:"shape"`
	Offsets [2]int  `json:"data_offsets"`
}

// parseSafetensors decodes the format: an 8-byte little-endian header
// length, a JSON header naming each tensor's dtype, shape and byte range,
// then the data. Integer tensors become float32 only when ints is set
// (the parity file holds token ids).
func parseSafetensors(raw []byte, ints bool) (*Weights, error) {
	if len(raw) < 8 {
		return nil, fmt.Errorf("%w: %d bytes is too short for safetensors", ErrWeights, len(raw))
	}
	n := binary.LittleEndian.Uint64(raw)
	if n > uint64(len(raw)-8) {
		return nil, fmt.Errorf("%w: header of %d bytes in a file of %d", ErrWeights, n, len(raw))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(raw[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("%w: header: %w", ErrWeights, err)
	}
	data := raw[8+n:]
	w := &Weights{tensors: map[string]floatTensor{}, meta: map[string]string{}}
	for name, msg := range header {
		if name == "__metadata__" {
			if err := json.Unmarshal(msg, &w.meta); err != nil {
				return nil, fmt.Errorf("%w: metadata: %w", ErrWeights, err)
			}
			continue
		}
		var e stEntry
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, fmt.Errorf("%w: tensor %s: %w", ErrWeights, name, err)
		}
		t, err := decodeTensor(e, data, ints)
		if err != nil {
			return nil, fmt.Errorf("%w: tensor %s: %w", ErrWeights, name, err)
		}
		w.tensors[name] = t
	}
	return w, nil
}

func decodeTensor(e stEntry, data []byte, ints bool) (floatTensor, error) {
	count := int64(1)
	for _, d := range e.Shape {
		if d < 0 {
			return floatTensor{}, fmt.Errorf("negative dimension in %v", e.Shape)
		}
		count *= d
	}
	size := map[string]int64{"F32": 4, "F16": 2, "I64": 8}[e.DType]
	if size == 0 || (e.DType == "I64" && !ints) {
		return floatTensor{}, fmt.Errorf("dtype %s is not supported (want F32 or F16)", e.DType)
	}
	lo, hi := e.Offsets[0], e.Offsets[1]
	if lo < 0 || hi < lo || hi > len(data) || int64(hi-lo) != count*size {
		return floatTensor{}, fmt.Errorf("data offsets %v do not hold %v %s values", e.Offsets, e.Shape, e.DType)
	}
	b := data[lo:hi]
	out := make([]float32, count)
	for i := range out {
		switch e.DType {
		case "F32":
			out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		case "F16":
			out[i] = float16Value(binary.LittleEndian.Uint16(b[2*i:]))
		case "I64":
			out[i] = float32(int64(binary.LittleEndian.Uint64(b[8*i:])))
		}
	}
	return floatTensor{shape: e.Shape, data: out}, nil
}

var layerRE = regexp.MustCompile(`^bert\.encoder\.layer\.(\d+)\.`)

// Preset reads the architecture off the tensors' shapes; the number of
// attention heads, which no shape shows, comes from the file's metadata
// (num_attention_heads).
func (w *Weights) Preset(name string) (Preset, error) {
	shape := func(n string, rank int) ([]int64, error) {
		t, ok := w.tensors[n]
		if !ok || len(t.shape) != rank {
			return nil, fmt.Errorf("%w: no %d-D tensor %s", ErrWeights, rank, n)
		}
		return t.shape, nil
	}
	p := Preset{Name: name}
	const e = "bert.embeddings."
	words, err := shape(e+"word_embeddings.weight", 2)
	if err != nil {
		return p, err
	}
	pos, err := shape(e+"position_embeddings.weight", 2)
	if err != nil {
		return p, err
	}
	types, err := shape(e+"token_type_embeddings.weight", 2)
	if err != nil {
		return p, err
	}
	inter, err := shape("bert.encoder.layer.0.intermediate.dense.weight", 2)
	if err != nil {
		return p, err
	}
	p.VocabSize, p.Hidden, p.MaxPositions, p.TypeVocab = int(words[0]), int(words[1]), int(pos[0]), int(types[0])
	p.Intermediate = int(inter[0])
	for n := range w.tensors {
		if m := layerRE.FindStringSubmatch(n); m != nil {
			i, _ := strconv.Atoi(m[1])
			p.Layers = max(p.Layers, i+1)
		}
	}
	if p.Heads, err = strconv.Atoi(w.meta["num_attention_heads"]); err != nil {
		return p, fmt.Errorf("%w: metadata num_attention_heads %q is not a number", ErrWeights, w.meta["num_attention_heads"])
	}
	return p, p.validate()
}

// take returns the named tensor's values in the graph's layout: as stored,
// or transposed from [out, in] to [in, out] for a Linear weight.
func (w *Weights) take(name string, transpose bool, dims ...int64) ([]float32, error) {
	t, ok := w.tensors[name]
	if !ok {
		return nil, fmt.Errorf("%w: the graph needs %s, which the file lacks", ErrWeights, name)
	}
	want := dims
	if transpose {
		want = []int64{dims[1], dims[0]}
	}
	if !slices.Equal(t.shape, want) {
		return nil, fmt.Errorf("%w: %s has shape %v, the graph needs %v", ErrWeights, name, t.shape, want)
	}
	if !transpose {
		return t.data, nil
	}
	rows, cols := int(want[0]), int(want[1])
	out := make([]float32, len(t.data))
	for r := range rows {
		for c := range cols {
			out[c*rows+r] = t.data[r*cols+c]
		}
	}
	return out, nil
}

// names lists the tensors in a stable order, for "unused tensor" errors.
func (w *Weights) names() []string {
	var out []string
	for n := range w.tensors {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
