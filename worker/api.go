// Package worker runs one model replica: an ONNX Runtime session on one
// device that turns a qa.Batch into qa.Logits. It also owns the model
// directory (model.onnx, tokenizer.json, config.json) and the tokenizer
// (subpackage tokenizer). Nothing here knows about documents or scheduling.
package worker

import (
	"context"
	"fmt"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
	"go.uber.org/zap"

	"qa-shard/internal/errkind"
	"qa-shard/qa"
)

// ErrConfig marks problems a user fixes by changing flags or files (a
// missing library, a model that does not fit); main maps it to exit code 2.
var ErrConfig = errkind.NewUser("configuration")

// ReplicaOptions configure one session.
type ReplicaOptions struct {
	Name     string // for logs, e.g. "cpu:0" or "gpu0"
	Provider string // ProviderCPU, ProviderCUDA or ProviderTensorRT
	Threads  int    // intra-op threads; 0 lets ONNX Runtime choose
	GPU      GPUOptions
	// Log receives what the GPU placement check finds (see placement.go);
	// nil discards it.
	Log *zap.Logger
}

// Replica is one ONNX Runtime session. Run may be called from one goroutine
// at a time per replica; the scheduler gives each replica its own goroutine.
type Replica struct {
	name    string
	model   *Model
	opt     ReplicaOptions
	session *ort.DynamicAdvancedSession
	runOpts *ort.RunOptions // carries Terminate for a batch that overruns
	mu      sync.Mutex      // guards the session against accidental concurrent Close
}

// NewReplica opens a session for m. Init must have succeeded first.
func NewReplica(m *Model, opt ReplicaOptions) (*Replica, error) {
	s, err := newSession(m, opt)
	if err != nil {
		return nil, err
	}
	ro, err := ort.NewRunOptions()
	if err != nil {
		s.Destroy()
		return nil, fmt.Errorf("replica %s: run options: %w", opt.Name, err)
	}
	return &Replica{name: opt.Name, model: m, opt: opt, session: s, runOpts: ro}, nil
}

// Name identifies the replica in logs and summaries.
func (r *Replica) Name() string { return r.name }

// Run executes one batch. Canceling ctx (the scheduler's batch timeout, or
// a hard stop) terminates a run in progress through ONNX Runtime's
// RunOptions.Terminate.
func (r *Replica) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	if err := ctx.Err(); err != nil {
		return qa.Logits{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session == nil {
		return qa.Logits{}, fmt.Errorf("replica %s: closed", r.name)
	}
	// A Terminate that fails leaves the batch to finish; Run still
	// reports ctx's error below.
	stop := context.AfterFunc(ctx, func() { _ = r.runOpts.Terminate() })
	out, err := r.run(b)
	if !stop() {
		// Terminate was called: clear it so the next batch can run (if
		// that fails, the next batch is terminated and fails as such).
		_ = r.runOpts.UnsetTerminate()
		return qa.Logits{}, fmt.Errorf("replica %s: run terminated (%w): %w", r.name, err, ctx.Err())
	}
	return out, err
}

// Rebuild replaces the session with a fresh one, after an error that may
// have left the old one (or its CUDA context) unusable.
func (r *Replica) Rebuild() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session != nil {
		r.session.Destroy()
		r.session = nil
	}
	s, err := newSession(r.model, r.opt)
	if err != nil {
		return err
	}
	r.session = s
	return nil
}

// Close releases the session.
func (r *Replica) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.session == nil {
		return nil
	}
	err := r.session.Destroy()
	r.session = nil
	r.runOpts.Destroy()
	return err
}
