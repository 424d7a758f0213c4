package shard

import (
	"fmt"
	"strconv"
	"strings"
)

// Local is this process's place among its job's ranks on its node: CPU
// ranks on one node share its cores, GPU ranks its GPUs.
type Local struct {
	Rank, Ranks int    // this process is local rank Rank of Ranks on the node
	Source      string // the variables it was read from, for logs
}

// DetectLocal reads how many ranks of the job run on this node, and which
// of them this process is, from the launcher: Slurm (SLURM_LOCALID, with
// this node's entry of SLURM_STEP_TASKS_PER_NODE, else
// SLURM_NTASKS_PER_NODE) or torchrun (LOCAL_RANK, LOCAL_WORLD_SIZE). ok
// is false when no launcher says (a single process, ranks given by flags,
// a Kubernetes Indexed Job: one pod each). A launcher's variables that
// contradict each other are an error.
func DetectLocal(getenv func(string) (string, bool)) (l Local, ok bool, err error) {
	num := envNum(getenv)
	if local, set, err := num("SLURM_LOCALID"); set || err != nil {
		if err != nil {
			return Local{}, false, err
		}
		n, src, err := slurmTasksHere(getenv, num)
		if err != nil || n == 0 {
			return Local{}, false, err
		}
		return checkLocal(Local{Rank: local, Ranks: n, Source: "SLURM_LOCALID, " + src})
	}
	local, set1, err1 := num("LOCAL_RANK")
	n, set2, err2 := num("LOCAL_WORLD_SIZE")
	switch {
	case err1 != nil:
		return Local{}, false, err1
	case err2 != nil:
		return Local{}, false, err2
	case set1 && set2:
		return checkLocal(Local{Rank: local, Ranks: n, Source: "LOCAL_RANK, LOCAL_WORLD_SIZE"})
	}
	return Local{}, false, nil
}

func checkLocal(l Local) (Local, bool, error) {
	if l.Ranks < 1 || l.Rank >= l.Ranks {
		return Local{}, false, fmt.Errorf("%w: local rank %d of %d ranks on this node (from %s) is not valid", ErrRank, l.Rank, l.Ranks, l.Source)
	}
	return l, true, nil
}

// slurmTasksHere is the number of the step's tasks on this node: this
// node's entry (SLURM_NODEID) of SLURM_STEP_TASKS_PER_NODE ("2(x3),1":
// two tasks on each of the first three nodes, one on the fourth), else
// SLURM_NTASKS_PER_NODE; 0 when neither is set.
func slurmTasksHere(getenv func(string) (string, bool), num func(string) (int, bool, error)) (int, string, error) {
	if list, ok := getenv("SLURM_STEP_TASKS_PER_NODE"); ok && strings.TrimSpace(list) != "" {
		node, _, err := num("SLURM_NODEID")
		if err != nil {
			return 0, "", err
		}
		n, err := tasksOnNode(strings.TrimSpace(list), node)
		if err != nil {
			return 0, "", fmt.Errorf("%w: SLURM_STEP_TASKS_PER_NODE=%q: %w", ErrRank, list, err)
		}
		return n, "SLURM_STEP_TASKS_PER_NODE", nil
	}
	n, ok, err := num("SLURM_NTASKS_PER_NODE")
	if !ok || err != nil {
		return 0, "", err
	}
	return n, "SLURM_NTASKS_PER_NODE", nil
}

// tasksOnNode reads node's count from Slurm's compressed list of tasks
// per node: comma-separated counts, each optionally repeated, "N(xR)".
func tasksOnNode(list string, node int) (int, error) {
	at := 0
	for item := range strings.SplitSeq(list, ",") {
		count, rep := item, "1"
		if i := strings.Index(item, "(x"); i >= 0 && strings.HasSuffix(item, ")") {
			count, rep = item[:i], item[i+2:len(item)-1]
		}
		n, err1 := strconv.Atoi(count)
		r, err2 := strconv.Atoi(rep)
		if err1 != nil || err2 != nil || n < 0 || r < 1 {
			return 0, fmt.Errorf("%q is not a count of tasks (N or N(xR))", item)
		}
		if node < at+r {
			return n, nil
		}
		at += r
	}
	return 0, fmt.Errorf("no entry for node %d (SLURM_NODEID) among %d nodes", node, at)
}
