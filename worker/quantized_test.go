package worker

import (
	"path/filepath"
	"testing"

	"qa-shard/quantize"
)

// TestQuantizedActivations: a model with dynamic int8 operators is marked,
// so the run can give it one unpadded window per batch; the float32
// models are not.
func TestQuantizedActivations(t *testing.T) {
	for _, name := range []string{"tiny", "tiny-notype", "tiny-fp16"} {
		if openModel(t, name).QuantizedActivations {
			t.Errorf("%s: float32 model marked as quantizing activations", name)
		}
	}
	dst := filepath.Join(t.TempDir(), "int8")
	if _, err := quantize.Dir(model(t, "tiny"), dst); err != nil {
		t.Fatal(err)
	}
	m, err := OpenModel(dst)
	if err != nil {
		t.Fatal(err)
	}
	if !m.QuantizedActivations {
		t.Error("the quantized model is not marked")
	}
}
