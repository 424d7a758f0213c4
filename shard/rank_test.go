package shard

import (
	"errors"
	"testing"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name        string
		rank, world int
		env         func(string) (string, bool)
		want        Rank
		bad         bool
	}{
		{"single", -1, 0, env(), Rank{0, 1, "single process"}, false},
		{"flags", 2, 4, env("SLURM_PROCID", "1", "SLURM_NTASKS", "4"), Rank{2, 4, "flags"}, false},
		{"slurm", -1, 0, env("SLURM_PROCID", "3", "SLURM_NTASKS", "4"), Rank{3, 4, "slurm"}, false},
		{"slurm array", -1, 0, env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "5", "SLURM_ARRAY_TASK_COUNT", "4"), Rank{5, 8, "slurm array"}, false},
		{"slurm array from max", -1, 0, env("SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "9"), Rank{2, 10, "slurm array"}, false},
		{"torchrun", -1, 0, env("RANK", "5", "WORLD_SIZE", "8"), Rank{5, 8, "torchrun"}, false},
		{"kubernetes", -1, 6, env("JOB_COMPLETION_INDEX", "4"), Rank{4, 6, "kubernetes"}, false},
		{"kubernetes without world", -1, 0, env("JOB_COMPLETION_INDEX", "4"), Rank{}, true},
		{"rank beyond world", 4, 4, env(), Rank{}, true},
		{"world flag contradicts slurm", -1, 8, env("SLURM_PROCID", "1", "SLURM_NTASKS", "4"), Rank{}, true},
		{"bad number", -1, 0, env("SLURM_PROCID", "x", "SLURM_NTASKS", "4"), Rank{}, true},
		{"world without rank", -1, 3, env(), Rank{}, true},
		{"sparse array", -1, 0, env("SLURM_ARRAY_TASK_ID", "9", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "5"), Rank{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Detect(tc.rank, tc.world, tc.env)
			if tc.bad {
				if !errors.Is(err, ErrRank) {
					t.Fatalf("got %+v, %v; want ErrRank", got, err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
