package shard

import (
	"errors"
	"testing"
)

func TestDetectLocal(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(string) (string, bool)
		want Local
		ok   bool
		bad  bool
	}{
		{"none", env(), Local{}, false, false},
		{"flags or kubernetes say nothing of the node", env("JOB_COMPLETION_INDEX", "3", "RANK", "3"), Local{}, false, false},
		{"slurm step list, third node", env("SLURM_LOCALID", "1", "SLURM_NODEID", "2", "SLURM_STEP_TASKS_PER_NODE", "4(x2),3,1"),
			Local{1, 3, "SLURM_LOCALID, SLURM_STEP_TASKS_PER_NODE"}, true, false},
		{"slurm step list, repeated entry", env("SLURM_LOCALID", "0", "SLURM_NODEID", "1", "SLURM_STEP_TASKS_PER_NODE", "2(x3)", "SLURM_NTASKS_PER_NODE", "9"),
			Local{0, 2, "SLURM_LOCALID, SLURM_STEP_TASKS_PER_NODE"}, true, false},
		{"slurm ntasks per node", env("SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "2"), Local{1, 2, "SLURM_LOCALID, SLURM_NTASKS_PER_NODE"}, true, false},
		{"slurm local id alone", env("SLURM_LOCALID", "0"), Local{}, false, false},
		{"torchrun", env("LOCAL_RANK", "3", "LOCAL_WORLD_SIZE", "4", "RANK", "7", "WORLD_SIZE", "8"), Local{3, 4, "LOCAL_RANK, LOCAL_WORLD_SIZE"}, true, false},
		{"slurm first", env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "2", "LOCAL_RANK", "3", "LOCAL_WORLD_SIZE", "4"),
			Local{0, 2, "SLURM_LOCALID, SLURM_NTASKS_PER_NODE"}, true, false},
		{"node beyond the list", env("SLURM_LOCALID", "0", "SLURM_NODEID", "5", "SLURM_STEP_TASKS_PER_NODE", "2(x2)"), Local{}, false, true},
		{"malformed list", env("SLURM_LOCALID", "0", "SLURM_NODEID", "0", "SLURM_STEP_TASKS_PER_NODE", "two"), Local{}, false, true},
		{"local rank beyond the count", env("LOCAL_RANK", "4", "LOCAL_WORLD_SIZE", "4"), Local{}, false, true},
		{"bad number", env("SLURM_LOCALID", "x", "SLURM_NTASKS_PER_NODE", "2"), Local{}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := DetectLocal(tc.env)
			if tc.bad {
				if !errors.Is(err, ErrRank) {
					t.Fatalf("DetectLocal = %+v, %v, %v; want an ErrRank", got, ok, err)
				}
				return
			}
			if err != nil || ok != tc.ok || got != tc.want {
				t.Fatalf("DetectLocal = %+v, %v, %v; want %+v, %v", got, ok, err, tc.want, tc.ok)
			}
		})
	}
}
