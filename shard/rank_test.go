package shard

import (
	"errors"
	"strings"
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
		{"slurm and torchrun agree", -1, 0, env("SLURM_PROCID", "3", "SLURM_NTASKS", "4", "RANK", "3", "WORLD_SIZE", "4"), Rank{3, 4, "slurm"}, false},
		{"slurm and torchrun disagree", -1, 0, env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "RANK", "5", "WORLD_SIZE", "8"), Rank{}, true},
		{"flags settle a disagreement", 5, 8, env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "RANK", "5", "WORLD_SIZE", "8"), Rank{5, 8, "flags"}, false},
		{"procid without ntasks", -1, 0, env("SLURM_PROCID", "3"), Rank{}, true},
		{"procid 0 without ntasks", -1, 0, env("SLURM_PROCID", "0"), Rank{0, 1, "slurm"}, false},
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

// TestDetectSaysWhy: the refusals name what to do: a Slurm rank that
// torchrun's variables contradict names both and the flags that settle
// it; SLURM_PROCID alone names srun.
func TestDetectSaysWhy(t *testing.T) {
	_, err := Detect(-1, 0, env("SLURM_PROCID", "1", "SLURM_NTASKS", "2", "RANK", "5", "WORLD_SIZE", "8"))
	if err == nil || !strings.Contains(err.Error(), "rank 1 of 2") || !strings.Contains(err.Error(), "rank 5 of 8") || !strings.Contains(err.Error(), "--rank $RANK --world-size $WORLD_SIZE") {
		t.Errorf("disagreeing launchers: %v", err)
	}
	_, err = Detect(-1, 0, env("SLURM_PROCID", "3"))
	if err == nil || !strings.Contains(err.Error(), "without SLURM_NTASKS") || !strings.Contains(err.Error(), "srun") {
		t.Errorf("SLURM_PROCID alone: %v", err)
	}
}
