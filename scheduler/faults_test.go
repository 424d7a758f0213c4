package scheduler

import (
	"errors"
	"fmt"
	"testing"
)

type oomError struct{ error }

func (oomError) OutOfMemory() bool { return true }

// TestClassify: the kind comes from the error's type through any wrapping,
// never from its text.
func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want failure
	}{
		{"typed out of memory, wrapped", fmt.Errorf("replica x: %w", oomError{errors.New("bfc arena")}), failOOM},
		{"typed fatal, wrapped twice", fmt.Errorf("a: %w", fmt.Errorf("b: %w", fatalError{errors.New("lost")})), failFatal},
		{"batch timeout", fmt.Errorf("%w after 1s: %w", ErrBatchTimeout, errors.New("terminated")), failFatal},
		{"unhealthy device", ErrUnhealthy, failFatal},
		{"OOM text without the type", errors.New("CUDA out of memory"), failOther},
		{"fatal text without the type", errors.New("CUDA failure 700: an illegal memory access was encountered"), failOther},
		{"plain", errors.New("poisoned batch"), failOther},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%s: classify = %v, want %v", tc.name, got, tc.want)
		}
	}
}
