package scheduler

import (
	"errors"
	"strings"
)

// ErrAllReplicasFailed means every replica was retired: the run cannot go
// on here, but what was written is complete and the run can be resumed
// (exit 75 in main).
var ErrAllReplicasFailed = errors.New("every replica failed and was retired")

// ErrBatchTimeout marks a batch that ran longer than the batch timeout and
// was terminated.
var ErrBatchTimeout = errors.New("batch timed out")

// ErrUnhealthy marks a replica whose device was reported unhealthy.
var ErrUnhealthy = errors.New("device reported unhealthy")

type failure int

const (
	failOther failure = iota // may be the batch's content: bisect it
	failOOM                  // too big for the device now: split, shrink the budget
	failFatal                // the session or device is broken: rebuild or retire
)

func (f failure) String() string {
	return [...]string{"error", "out of memory", "fatal"}[f]
}

// oomTexts and fatalTexts are ONNX Runtime's and CUDA's words for these
// failures (its errors are plain strings).
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

func classify(err error) failure {
	if errors.Is(err, ErrBatchTimeout) || errors.Is(err, ErrUnhealthy) {
		return failFatal
	}
	msg := err.Error()
	for _, t := range fatalTexts {
		if strings.Contains(msg, t) {
			return failFatal
		}
	}
	for _, t := range oomTexts {
		if strings.Contains(msg, t) {
			return failOOM
		}
	}
	return failOther
}
