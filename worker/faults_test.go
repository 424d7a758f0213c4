package worker

import (
	"errors"
	"fmt"
	"testing"
)

// TestClassify: ONNX Runtime's and CUDA's texts become typed errors that
// keep the original chain.
func TestClassify(t *testing.T) {
	cause := errors.New("binding error")
	for _, tc := range []struct {
		text string
		want Fault
	}{
		{"Error running network: BFCArena::AllocateRawInternal Failed to allocate memory for requested buffer of size 805306368", FaultOOM},
		{"CUDNN_STATUS_ALLOC_FAILED", FaultOOM},
		{"CUDA failure 700: an illegal memory access was encountered ; GPU=0", FaultFatal},
		{"CUDA error: an illegal instruction was encountered", FaultFatal},
		{"indices element out of data bounds, idx=901", FaultInput},
	} {
		err := Classify(fmt.Errorf("replica r: %s: %w", tc.text, cause))
		var re *RunError
		if !errors.As(err, &re) || re.Fault != tc.want {
			t.Errorf("%q: %v, want fault %v", tc.text, err, tc.want)
			continue
		}
		if re.OutOfMemory() != (tc.want == FaultOOM) || re.Fatal() != (tc.want == FaultFatal) {
			t.Errorf("%q: OutOfMemory %v Fatal %v for fault %v", tc.text, re.OutOfMemory(), re.Fatal(), tc.want)
		}
		if !errors.Is(err, cause) {
			t.Errorf("%q: the cause is lost", tc.text)
		}
	}
	if Classify(nil) != nil {
		t.Error("Classify(nil) is not nil")
	}
	first := Classify(errors.New("out of memory"))
	if again := Classify(fmt.Errorf("wrapped: %w", first)); !errors.Is(again, first) {
		t.Error("an error already classified is classified again")
	}
}
