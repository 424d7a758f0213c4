package metrics

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Deadline variables: where a launcher says when the job will be stopped,
// in Unix seconds. Slurm exports SLURM_JOB_END_TIME into the job's
// environment (reported since Slurm 20.11; not checked against a Slurm
// here); QA_SHARD_DEADLINE is for other launchers and wins when both are
// set.
const (
	EnvDeadline      = "QA_SHARD_DEADLINE"
	EnvSlurmJobEnd   = "SLURM_JOB_END_TIME"
	deadlineGaugeDoc = "When the launcher will stop the job (Unix seconds, from $" + EnvDeadline + " or Slurm's $" + EnvSlurmJobEnd + "); absent when none says."
)

// deadlineFromEnv reads the deadline, if any: ok false when neither
// variable is set or the value is not a positive number of seconds (a
// bad value is reported, never fatal: monitoring must not fail a job).
func deadlineFromEnv(getenv func(string) string) (seconds float64, from string, err error) {
	for _, name := range []string{EnvDeadline, EnvSlurmJobEnd} {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			continue
		}
		s, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil || s <= 0 {
			return 0, name, fmt.Errorf("$%s=%q is not a time in Unix seconds: no deadline metric", name, v)
		}
		return float64(s), name, nil
	}
	return 0, "", nil
}

// osGetenv is os.Getenv, replaced in tests.
var osGetenv = os.Getenv
