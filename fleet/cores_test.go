package fleet

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"qa-shard/gpu"
	"qa-shard/tune"
)

func env(kv ...string) func(string) (string, bool) {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// TestShareCores: CPU ranks on one node split its cores by the launcher's
// count of ranks there; Slurm's CPUs per task are the task's own; where
// nothing says how many ranks share the node, or there are more ranks than
// cores, one warning says so.
func TestShareCores(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cpus, world   int
		env           func(string) (string, bool)
		cores         int
		shared, warns bool
	}{
		{"alone", 16, 1, env(), 16, false, false},
		{"two slurm tasks on a node", 16, 4, env("SLURM_LOCALID", "1", "SLURM_NODEID", "0", "SLURM_STEP_TASKS_PER_NODE", "2(x2)"), 8, true, false},
		{"three torchrun ranks", 16, 3, env("LOCAL_RANK", "2", "LOCAL_WORLD_SIZE", "3"), 5, true, false},
		{"one task on this node", 16, 4, env("SLURM_LOCALID", "0", "SLURM_NTASKS_PER_NODE", "1"), 16, false, false},
		{"slurm gave each task its cpus", 16, 4, env("SLURM_LOCALID", "1", "SLURM_NTASKS_PER_NODE", "2", "SLURM_CPUS_PER_TASK", "4"), 4, true, false},
		{"more ranks than cores", 2, 4, env("LOCAL_RANK", "3", "LOCAL_WORLD_SIZE", "4"), 1, true, true},
		{"ranks from flags", 16, 4, env(), 16, false, true},
		{"unreadable count", 16, 4, env("SLURM_LOCALID", "0", "SLURM_NODEID", "0", "SLURM_STEP_TASKS_PER_NODE", "?"), 16, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := shareCores(tc.cpus, tc.world, tc.env)
			if s.cores != tc.cores || (s.info != "") != tc.shared || (s.warn != "") != tc.warns {
				t.Fatalf("share %+v: want %d cores, shared %v, a warning %v", s, tc.cores, tc.shared, tc.warns)
			}
			// The layouts searched use the share: never more threads than it.
			for _, l := range cpuLayouts(Options{}, 1, s.cores) {
				if l.Sessions*l.Threads > s.cores {
					t.Errorf("layout %s on a share of %d cores", l, s.cores)
				}
			}
		})
	}
	shared := shareCores(16, 2, env("LOCAL_RANK", "0", "LOCAL_WORLD_SIZE", "2"))
	c := deviceClass{layouts: cpuLayouts(Options{Threads: 16}, 1, shared.cores)}
	if w := shared.oversubscribed(c); !strings.Contains(w, "16 threads") || !strings.Contains(w, "8 cores") {
		t.Errorf("--threads 16 on a share of 8 cores: warning %q", w)
	}
	if w := shared.oversubscribed(deviceClass{layouts: []tune.Layout{{Sessions: 2, Threads: 4}}}); w != "" {
		t.Errorf("2 sessions x 4 threads on 8 cores: warning %q", w)
	}
}

// TestPlanClassesSharesCores: the CPU class of a rank that shares its node
// searches layouts within its share, keys the tuning cache by it, and says
// so once at start.
func TestPlanClassesSharesCores(t *testing.T) {
	t.Setenv("SLURM_LOCALID", "")
	t.Setenv("LOCAL_RANK", "1")
	t.Setenv("LOCAL_WORLD_SIZE", "2")
	core, logs := observer.New(zap.InfoLevel)
	cs, err := planClasses(Options{Ranks: 2, MaxSeqLen: 384, Log: zap.New(core)}, gpu.Selection{Devices: []gpu.Device{{Kind: gpu.KindCPU}}})
	if err != nil {
		t.Fatal(err)
	}
	share := max(1, runtime.NumCPU()/2)
	if !strings.HasSuffix(cs[0].device, fmt.Sprintf("(%d cores)", share)) {
		t.Errorf("cache key device %q, want this rank's %d cores", cs[0].device, share)
	}
	for _, l := range cs[0].layouts {
		if l.Sessions*l.Threads > share {
			t.Errorf("layout %s on a share of %d cores", l, share)
		}
	}
	if n := logs.FilterMessage("CPU ranks on this node share its cores").Len(); n != 1 {
		t.Errorf("%d lines saying the ranks share the cores, want 1: %v", n, logs.All())
	}
}
