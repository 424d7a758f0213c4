package worker

import (
	"errors"
	"strings"
)

// Fault is the kind of failure a batch run met, as a scheduler must tell
// them apart.
type Fault int

const (
	// FaultInput: the failure may follow the batch's content (an id
	// outside the vocabulary, a shape the graph refuses); running the
	// windows in smaller groups finds the one at fault.
	FaultInput Fault = iota
	// FaultOOM: the batch did not fit in the device's memory now; smaller
	// batches may.
	FaultOOM
	// FaultFatal: the session or its CUDA context is broken; every later
	// run fails until the session is rebuilt.
	FaultFatal
)

func (f Fault) String() string {
	return [...]string{"error", "out of memory", "fatal"}[f]
}

// RunError is a failed batch run, classified by what ONNX Runtime and CUDA
// said. Its OutOfMemory and Fatal methods are how a consumer that does
// not import this package (the scheduler declares them) learns the kind.
type RunError struct {
	Fault Fault
	Err   error
}

func (e *RunError) Error() string { return e.Err.Error() }
func (e *RunError) Unwrap() error { return e.Err }

// OutOfMemory says whether smaller batches may succeed.
func (e *RunError) OutOfMemory() bool { return e.Fault == FaultOOM }

// Fatal says whether the session must be rebuilt before it can run again.
func (e *RunError) Fatal() bool { return e.Fault == FaultFatal }

// oomTexts and fatalTexts are ONNX Runtime's and CUDA's words for these
// failures (the binding's errors are plain strings).
var (
	oomTexts = []string{
		"Failed to allocate memory for requested buffer",
		"out of memory",
		"CUDNN_STATUS_ALLOC_FAILED",
		"CUBLAS_STATUS_ALLOC_FAILED",
	}
	fatalTexts = []string{
		"illegal memory access",
		"unspecified launch failure",
		"CUDA failure 999",
		"CUDA failure 700",
		"GPU is lost",
		"device-side assert",
		"CUDA error: an illegal instruction",
	}
)

// Classify turns the error of a failed run into a *RunError (nil stays
// nil; an error that already is one is returned as it is). The simulated
// replicas (worker/sim) classify their copies of the real texts with it.
func Classify(err error) error {
	var re *RunError
	if err == nil || errors.As(err, &re) {
		return err
	}
	msg := err.Error()
	for _, t := range fatalTexts {
		if strings.Contains(msg, t) {
			return &RunError{Fault: FaultFatal, Err: err}
		}
	}
	for _, t := range oomTexts {
		if strings.Contains(msg, t) {
			return &RunError{Fault: FaultOOM, Err: err}
		}
	}
	return &RunError{Fault: FaultInput, Err: err}
}
