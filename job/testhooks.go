//go:build testhooks

package job

import (
	"context"

	"qa-shard/internal/record"
	"qa-shard/output"
	"qa-shard/scheduler"
)

// TestHook, set only by the tests (cmd/qa-shard/hooks_test.go, from environment
// variables a test gives the child process it starts), wraps the input and
// the answers to stop, pause or kill the process at a chosen document, so
// that those tests depend on progress, never on timing. Only a build with
// the tag testhooks has it (make test); the product has nohooks.go.
var TestHook func(ctx context.Context, stop <-chan struct{}, out *output.Outputs, src scheduler.Source, answers record.Sink,
	replicas []scheduler.Replica) (scheduler.Source, record.Sink, []scheduler.Replica)

// hooked is the run's input, answers and replicas, wrapped by TestHook
// when a test set it.
func hooked(ctx context.Context, stop <-chan struct{}, out *output.Outputs, src scheduler.Source, answers record.Sink,
	replicas []scheduler.Replica) (scheduler.Source, record.Sink, []scheduler.Replica) {
	if TestHook == nil {
		return src, answers, replicas
	}
	return TestHook(ctx, stop, out, src, answers, replicas)
}
