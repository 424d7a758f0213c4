package checkpoint

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// expected is testdata/expected.json: what torch holds of each tensor of
// the fixtures tools/reference/fixtures.py wrote with torch itself.
type expected map[string]struct {
	DType  string
	Shape  []int64
	Values []float32
}

func readExpected(t *testing.T) expected {
	t.Helper()
	b, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// folder makes a model folder holding src under the name name.
func folder(t *testing.T, src, name string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestReadsWhatTorchWrote: a pytorch_model.bin torch.save wrote and a
// model.safetensors the safetensors library wrote give every tensor's
// type, shape and values exactly as torch holds them: float32, float16
// and bfloat16 widened exactly, an nn.Parameter, views into one shared
// storage at their offsets, a 0-d tensor; an int64 buffer is read as a
// buffer (Other), never as a weight.
func TestReadsWhatTorchWrote(t *testing.T) {
	want := readExpected(t)
	for _, tc := range []struct{ src, name, format string }{
		{"testdata/state.bin", TorchFile, TorchFile},
		{"testdata/state.safetensors", SafetensorsFile, "safetensors"},
	} {
		t.Run(tc.format, func(t *testing.T) {
			c, err := Open(folder(t, tc.src, tc.name))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if c.Format != tc.format {
				t.Errorf("format %q", c.Format)
			}
			if got := c.Names(); len(got) != len(want) {
				t.Errorf("tensors %v, want %d", got, len(want))
			}
			for name, w := range want {
				tn, ok := c.Tensor(name)
				if !ok {
					t.Errorf("no %s", name)
					continue
				}
				if !slices.Equal(tn.Shape, w.Shape) {
					t.Errorf("%s: shape %v, want %v", name, tn.Shape, w.Shape)
				}
				if w.DType == "I64" {
					if tn.DType != Other {
						t.Errorf("%s: %v, want a buffer", name, tn.DType)
					}
					continue
				}
				if tn.DType.String() != w.DType {
					t.Errorf("%s: %v, want %s", name, tn.DType, w.DType)
				}
				got, err := tn.Float32s()
				if err != nil || !slices.Equal(got, w.Values) {
					t.Errorf("%s: %v, %v; want %v", name, got, err, w.Values)
				}
			}
		})
	}
}

// TestTransposedStreaming: WriteFloat32 with transpose writes a matrix's
// transpose.
func TestTransposedStreaming(t *testing.T) {
	c, err := Open(folder(t, "testdata/state.safetensors", SafetensorsFile))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	w, _ := c.Tensor("layer.weight") // [2, 3]
	vals, _ := w.Float32s()
	var b bytesWriter
	if err := w.WriteFloat32(&b, true); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for j := range 2 {
			got := float32FromBytes(b[4*(i*2+j):])
			if got != vals[j*3+i] {
				t.Fatalf("transpose[%d][%d] = %v, want %v", i, j, got, vals[j*3+i])
			}
		}
	}
}

// TestRefusesPickles: a pytorch_model.bin whose pickle names any global a
// state dict does not need (os.system, builtins.eval) is refused, naming
// the file and the global, and nothing of it runs; the legacy (tar)
// format and a file that is no zip are refused naming what to do.
func TestRefusesPickles(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"testdata/evil-system.bin", "posix.system"},
		{"testdata/evil-eval.bin", "builtin__.eval"}, // protocol 2 names Python 3's builtins so
		{"testdata/legacy.bin", "legacy"},
		{"testdata/expected.json", "not a torch.save zip"},
	} {
		t.Run(filepath.Base(tc.src), func(t *testing.T) {
			dir := folder(t, tc.src, TorchFile)
			_, err := Open(dir)
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Join(dir, TorchFile)) {
				t.Errorf("err = %v\nwant ErrCheckpoint naming the file and %q", err, tc.want)
			}
		})
	}
}

// TestRefusesDamagedSafetensors: a header past the file, a header that is
// no JSON, a file cut short, offsets that overlap or leave a gap: each
// refused naming the file.
func TestRefusesDamagedSafetensors(t *testing.T) {
	good, err := os.ReadFile("testdata/state.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	n := binary.LittleEndian.Uint64(good)
	header := string(good[8 : 8+n])
	withHeader := func(h string) []byte {
		out := binary.LittleEndian.AppendUint64(nil, uint64(len(h)))
		return append(append(out, h...), good[8+n:]...)
	}
	var first struct {
		Offsets [2]int `json:"data_offsets"`
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal([]byte(header), &raw)
	_ = json.Unmarshal(raw["layer.weight"], &first)
	overlap := strings.Replace(header, `"data_offsets":[`, `"data_offsets":[0,`, 1)
	for name, data := range map[string][]byte{
		"empty":            {},
		"header too large": append(binary.LittleEndian.AppendUint64(nil, 1<<40), good[8:]...),
		"header past file": append(binary.LittleEndian.AppendUint64(nil, uint64(len(good))), good[8:]...),
		"header not json":  withHeader(strings.Repeat("x", len(header))),
		"cut short":        good[:len(good)-3],
		"overlap":          withHeader(overlap),
		"trailing bytes":   append(slices.Clone(good), 0, 0, 0, 0),
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, SafetensorsFile)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir)
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), path) {
				t.Errorf("err = %v, want ErrCheckpoint naming %s", err, path)
			}
		})
	}
}

// TestShards: a sharded checkpoint reads every shard the index names; an
// index naming a shard that is not there, or a tensor its shard does not
// hold, is refused naming it; a folder without weights names the files.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	index := func(m map[string]string) {
		b, _ := json.Marshal(map[string]any{"metadata": map[string]int{"total_size": 1}, "weight_map": m})
		if err := os.WriteFile(filepath.Join(dir, SafetensorsIndex), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	good, _ := os.ReadFile("testdata/state.safetensors")
	if err := os.WriteFile(filepath.Join(dir, "model-00001-of-00002.safetensors"), good, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, "model-00002-of-00002.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteSafetensors(f, []NewTensor{{Name: "other", Shape: []int64{2}, Fill: func(w io.Writer) error {
		_, err := w.Write(make([]byte, 8))
		return err
	}}}); err != nil {
		t.Fatal(err)
	}
	f.Close()

	index(map[string]string{"layer.weight": "model-00001-of-00002.safetensors", "other": "model-00002-of-00002.safetensors"})
	c, err := Open(dir)
	if err != nil {
		t.Fatalf("sharded: %v", err)
	}
	if _, ok := c.Tensor("other"); !ok || c.Format != "sharded safetensors" || len(c.Files) != 2 {
		t.Errorf("sharded: %v, %v", c.Names(), c.Files)
	}
	c.Close()
	index(map[string]string{"layer.weight": "model-00001-of-00002.safetensors", "layer.bias": "model-00003-of-00003.safetensors"})
	if _, err := Open(dir); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "model-00003-of-00003.safetensors") {
		t.Errorf("missing shard: %v", err)
	}
	index(map[string]string{"layer.weight": "model-00001-of-00002.safetensors", "nowhere": "model-00002-of-00002.safetensors"})
	if _, err := Open(dir); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("a tensor the shard lacks: %v", err)
	}
	if _, err := Open(t.TempDir()); !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), "model.safetensors") {
		t.Errorf("no weights: %v", err)
	}
}
