package qagraph

import (
	"fmt"
	"os"
	"testing"

	ort "github.com/yalue/onnxruntime_go"

	"qa-shard/internal/testing/testenv"
)

// ortErr is why ONNX Runtime is unusable in this test binary, if it is.
var ortErr error

func TestMain(m *testing.M) {
	ortErr = initORT()
	code := m.Run()
	if ortErr == nil {
		ort.DestroyEnvironment()
	}
	os.Exit(code)
}

func initORT() error {
	lib, err := testenv.ORTLib()
	if err != nil {
		return err
	}
	ort.SetSharedLibraryPath(lib)
	if err := ort.InitializeEnvironment(); err != nil {
		return fmt.Errorf("initialize ONNX Runtime from %s: %w", lib, err)
	}
	return nil
}

func requireORT(t testing.TB) {
	t.Helper()
	if ortErr != nil {
		t.Fatal(ortErr)
	}
}

// run runs the model folder's graph on the named int64 inputs (rows of
// equal length) and returns start and end logits per row.
func run(t *testing.T, path string, feed map[string][][]int64) (start, end [][]float32) {
	t.Helper()
	requireORT(t)
	var names []string
	var inputs []ort.Value
	for _, name := range []string{"input_ids", "attention_mask", "token_type_ids"} {
		rows, ok := feed[name]
		if !ok {
			continue
		}
		var flat []int64
		for _, r := range rows {
			flat = append(flat, r...)
		}
		x, err := ort.NewTensor(ort.NewShape(int64(len(rows)), int64(len(rows[0]))), flat)
		if err != nil {
			t.Fatal(err)
		}
		names, inputs = append(names, name), append(inputs, x)
	}
	rows, cols := len(feed["input_ids"]), len(feed["input_ids"][0])
	outputs := make([]ort.Value, 2)
	for i := range outputs {
		var err error
		if outputs[i], err = ort.NewEmptyTensor[float32](ort.NewShape(int64(rows), int64(cols))); err != nil {
			t.Fatal(err)
		}
	}
	defer func() {
		for _, v := range append(inputs, outputs...) {
			v.Destroy()
		}
	}()
	s, err := ort.NewDynamicAdvancedSession(path, names, []string{"start_logits", "end_logits"}, nil)
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	defer s.Destroy()
	if err := s.Run(inputs, outputs); err != nil {
		t.Fatalf("run: %v", err)
	}
	split := func(v ort.Value) [][]float32 {
		flat := v.(*ort.Tensor[float32]).GetData()
		out := make([][]float32, rows)
		for r := range out {
			out[r] = append([]float32(nil), flat[r*cols:(r+1)*cols]...)
		}
		return out
	}
	return split(outputs[0]), split(outputs[1])
}
