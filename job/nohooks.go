//go:build !testhooks

package job

import (
	"context"

	"qa-shard/internal/record"
	"qa-shard/output"
	"qa-shard/scheduler"
)

// hooked is the run's input, answers and replicas, as they are: the
// product links no test hooks (see testhooks.go, build tag testhooks).
func hooked(_ context.Context, _ <-chan struct{}, _ *output.Outputs, src scheduler.Source, answers record.Sink,
	replicas []scheduler.Replica) (scheduler.Source, record.Sink, []scheduler.Replica) {
	return src, answers, replicas
}
