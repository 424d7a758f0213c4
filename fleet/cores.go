package fleet

import (
	"fmt"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"qa-shard/shard"
)

// coreShare is how many cores this process's CPU sessions use, and what
// the run says about it at start.
type coreShare struct {
	cores int
	info  string      // how the share was found ("" when the process is alone on its cores)
	infoF []zap.Field // with info
	warn  string      // the one warning when ranks may contend for the cores
}

// shareCores divides the CPUs this process may run on (numCPU:
// runtime.NumCPU, its affinity mask) among the ranks of its job on this
// node, as the launcher counts them (shard.DetectLocal): CPU ranks on one
// node each take their share, not every core. Slurm's SLURM_CPUS_PER_TASK
// means Slurm gave each task its own CPUs: those are this rank's. When
// the job has several ranks (world > 1) but no launcher says how many
// share this node, or the node has fewer cores than ranks, one warning
// says so.
func shareCores(numCPU, world int, getenv func(string) (string, bool)) coreShare {
	s := coreShare{cores: max(1, numCPU)}
	local, ok, err := shard.DetectLocal(getenv)
	if v, set := getenv("SLURM_CPUS_PER_TASK"); set && ok {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n > 0 {
			s.cores = min(s.cores, n)
			s.info = "CPU sessions use the CPUs Slurm gave this task"
			s.infoF = []zap.Field{zap.Int("cores", s.cores), zap.Int("ranks_on_node", local.Ranks), zap.String("from", "SLURM_CPUS_PER_TASK")}
			return s
		}
	}
	switch {
	case err != nil:
		s.warn = fmt.Sprintf("the launcher's count of ranks on this node is unreadable (%v): this rank uses all %d cores; if other ranks run on this node, pass --threads (cores / ranks on the node)", err, s.cores)
	case !ok && world > 1:
		s.warn = fmt.Sprintf("this is one of %d ranks, but no launcher variable (SLURM_LOCALID with SLURM_STEP_TASKS_PER_NODE or SLURM_NTASKS_PER_NODE; torchrun's LOCAL_RANK and LOCAL_WORLD_SIZE) says how many run on this node: this rank uses all %d cores; if others share the node, pass --threads (cores / ranks on the node)", world, s.cores)
	case ok && local.Ranks > 1:
		s.cores = max(1, numCPU/local.Ranks)
		s.info = "CPU ranks on this node share its cores"
		s.infoF = []zap.Field{zap.Int("cores", s.cores), zap.Int("node_cores", numCPU), zap.Int("local_rank", local.Rank),
			zap.Int("ranks_on_node", local.Ranks), zap.String("from", local.Source)}
		if numCPU < local.Ranks {
			s.warn = fmt.Sprintf("%d ranks on this node share %d cores: each runs one thread, and they contend for the cores (run fewer ranks per node)", local.Ranks, numCPU)
		}
	}
	return s
}

// oversubscribed is the warning for candidate layouts that run more
// threads than the rank's share of cores (the user pinned --threads or
// --replicas-per-device above it), when ranks share the node; "" if none.
func (s coreShare) oversubscribed(c deviceClass) string {
	if s.info == "" {
		return ""
	}
	for _, l := range c.layouts {
		if n := l.Sessions * max(1, l.Threads); n > s.cores {
			return fmt.Sprintf("%s runs %d threads, but this rank's share of the node is %d cores: the node's ranks contend for its cores (drop --threads / --replicas-per-device, or lower them)", l, n, s.cores)
		}
	}
	return ""
}
