package main

import (
	"context"
	"os"

	"qa-shard/internal/bench"
	"qa-shard/internal/logs"
	"qa-shard/worker"
)

// benchCmd measures, in one process and interleaved repetitions, the raw
// model's best shape, qa-shard end to end (previous defaults, by hand,
// tuned from scratch and from the cache, int8) and a naive loop, and
// prints them side by side.
func benchCmd(args []string) error {
	r, err := bench.Parse(args)
	if err != nil {
		return err
	}
	lg, err := logs.New(r.LogFormat, r.LogLevel)
	if err != nil {
		return err
	}
	r.One.Log = lg
	switch {
	case r.Scheduling:
		return bench.Scheduling(context.Background(), os.Stdout)
	case r.Inputs:
		return bench.Inputs(context.Background(), os.Stdout)
	}
	if err := worker.Init(worker.FindLib(r.ORTLib)); err != nil {
		return err
	}
	if r.One.MaxBatchTokens > 0 {
		return bench.One(context.Background(), os.Stdout, r.One)
	}
	return bench.Measure(context.Background(), os.Stdout, r.One.Options)
}
