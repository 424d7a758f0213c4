package fleet

import (
	"context"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"qa-shard/qa"
	"qa-shard/worker"
)

// lazy is a replica whose ONNX Runtime session opens when it is first
// needed: the layouts the tuner may never use cost nothing, and a session
// opens on its replica's own OS thread. While the tuner measures another
// layout it may give its session back (GPUs: the memory is needed), and
// for good when its layout is set aside.
type lazy struct {
	name   string
	label  string // for people: "cpu#1 (1 thread)", "gpu0 H200 #2"
	model  *worker.Model
	opt    worker.ReplicaOptions
	keep   bool // keep the session while parked (CPU: opening is slow, memory plentiful)
	log    *zap.Logger
	fields []zap.Field

	mu sync.Mutex
	r  *worker.Replica
}

// openError is a session that could not be opened during the run: fatal
// for the replica (the scheduler rebuilds once, then retires it).
type openError struct{ err error }

func (e openError) Error() string { return e.err.Error() }
func (e openError) Unwrap() error { return e.err }
func (e openError) Fatal() bool   { return true }

func (l *lazy) Name() string  { return l.name }
func (l *lazy) Label() string { return l.label }

// open returns the session, opening it if needed.
func (l *lazy) open() (*worker.Replica, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r != nil {
		return l.r, nil
	}
	r, err := worker.NewReplica(l.model, l.opt)
	if err != nil {
		return nil, err
	}
	l.r = r
	l.log.Info("replica ready", l.fields...)
	return r, nil
}

func (l *lazy) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	r, err := l.open()
	if err != nil {
		return qa.Logits{}, openError{fmt.Errorf("replica %s: opening its session: %w", l.name, err)}
	}
	return r.Run(ctx, b)
}

// Rebuild replaces the session (or opens it, if it never opened).
func (l *lazy) Rebuild() error {
	l.mu.Lock()
	r := l.r
	l.mu.Unlock()
	if r == nil {
		_, err := l.open()
		return err
	}
	return r.Rebuild()
}

// Idle gives the session back while the tuner does not use the replica:
// for good, or for a while where memory matters more than opening time.
func (l *lazy) Idle(forGood bool) {
	if forGood || !l.keep {
		l.Close()
	}
}

// Close releases the session; a later Run opens a new one.
func (l *lazy) Close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.r != nil {
		l.r.Close()
		l.r = nil
	}
}
