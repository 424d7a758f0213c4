// Package run is `qa-shard run`, the default subcommand: its flags and
// help; package job assembles and runs the job they describe.
package run

import (
	"qa-shard/fleet"
	"qa-shard/internal/logs"
	"qa-shard/internal/signals"
	"qa-shard/job"
)

// Command is `qa-shard run`, the default subcommand, with what main
// gives it.
type Command struct {
	// Build is this build's version, for the run's metrics.
	Build string
	// ExitCodes is main's table of exit codes, a line a code, for --help.
	ExitCodes string
	// Simulate builds the replicas of a "sim:..." --devices spec, for tests
	// (nil: such a spec is refused).
	Simulate fleet.Simulator
}

// Run answers the questions of a corpus.
func (c Command) Run(args []string) error {
	o, err := parse(args, Help(c.ExitCodes))
	if err != nil {
		return err
	}
	log, err := logs.New(o.LogFormat, o.LogLevel)
	if err != nil {
		return err
	}
	defer log.Sync()
	h, release := signals.Handle(o.DrainTimeout, log)
	defer release()
	return job.Run(h, o, job.Env{Build: c.Build, Simulate: c.Simulate}, log)
}
