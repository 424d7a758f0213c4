// Package shard owns the ranks of a run split across processes: who this
// process is (flags, Slurm, torchrun, Kubernetes), the block of the input
// each rank reads and the rank files' names (commands/merge merges the
// ranks' outputs back into one).
package shard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"qa-shard/internal/errkind"
)

// ErrRank marks an inconsistent rank or world size.
var ErrRank = errkind.NewUser("rank")

// Rank says which part of the corpus this process owns when several
// processes share it, and where that was learned.
type Rank struct {
	Rank, World int
	Source      string // "flags", "slurm", "slurm array", "torchrun", "kubernetes", "single process"
}

// Detect takes the rank and world size from, in order: the flags
// (rank < 0 means unset); Slurm (SLURM_PROCID/SLURM_NTASKS, combined with
// SLURM_ARRAY_TASK_ID/COUNT for array jobs), refused when torchrun's
// variables are set too and name another rank; torchrun
// (RANK/WORLD_SIZE); a Kubernetes Indexed Job (JOB_COMPLETION_INDEX, with
// world from the flag).
func Detect(flagRank, flagWorld int, getenv func(string) (string, bool)) (Rank, error) {
	num := envNum(getenv)
	var r Rank
	var err error
	switch {
	case flagRank >= 0:
		r = Rank{Rank: flagRank, World: flagWorld, Source: "flags"}
	case hasEnv(getenv, "SLURM_PROCID") || hasEnv(getenv, "SLURM_ARRAY_TASK_ID"):
		r, err = slurmRank(num)
		if err == nil && hasEnv(getenv, "RANK") && hasEnv(getenv, "WORLD_SIZE") {
			err = agree(r, num)
		}
	case hasEnv(getenv, "RANK") && hasEnv(getenv, "WORLD_SIZE"):
		rank, _, e1 := num("RANK")
		world, _, e2 := num("WORLD_SIZE")
		r, err = Rank{Rank: rank, World: world, Source: "torchrun"}, errors.Join(e1, e2)
	case hasEnv(getenv, "JOB_COMPLETION_INDEX"):
		idx, _, e := num("JOB_COMPLETION_INDEX")
		r, err = Rank{Rank: idx, World: flagWorld, Source: "kubernetes"}, e
		if err == nil && flagWorld <= 0 {
			err = fmt.Errorf("%w: JOB_COMPLETION_INDEX is set but the job's completions are not in the environment: pass --world-size", ErrRank)
		}
	default:
		r = Rank{Rank: 0, World: max(flagWorld, 1), Source: "single process"}
		if flagWorld > 1 {
			err = fmt.Errorf("%w: --world-size %d without --rank (and no Slurm, torchrun or Kubernetes rank in the environment)", ErrRank, flagWorld)
		}
	}
	if err != nil {
		return Rank{}, err
	}
	if flagWorld > 0 && r.World != flagWorld {
		return Rank{}, fmt.Errorf("%w: --world-size %d contradicts the world size %d from %s", ErrRank, flagWorld, r.World, r.Source)
	}
	if r.World < 1 || r.Rank >= r.World {
		return Rank{}, fmt.Errorf("%w: rank %d of world size %d (from %s) is not valid", ErrRank, r.Rank, r.World, r.Source)
	}
	return r, nil
}

// agree refuses torchrun's RANK and WORLD_SIZE beside Slurm's when they
// name another rank (torchrun started inside a Slurm job numbers its own
// processes): which one the user meant cannot be guessed.
func agree(slurm Rank, num func(string) (int, bool, error)) error {
	rank, _, e1 := num("RANK")
	world, _, e2 := num("WORLD_SIZE")
	if err := errors.Join(e1, e2); err != nil {
		return err
	}
	if rank == slurm.Rank && world == slurm.World {
		return nil
	}
	return fmt.Errorf("%w: %s makes this process rank %d of %d, but torchrun's RANK=%d and WORLD_SIZE=%d say rank %d of %d: pass --rank and --world-size to say which (under torchrun: --rank $RANK --world-size $WORLD_SIZE)",
		ErrRank, slurm.Source, slurm.Rank, slurm.World, rank, world, rank, world)
}

func slurmRank(num func(string) (int, bool, error)) (Rank, error) {
	procid, _, e1 := num("SLURM_PROCID")
	ntasks, ok, e2 := num("SLURM_NTASKS")
	if !ok {
		ntasks = 1
		if procid > 0 {
			return Rank{}, errors.Join(e1, fmt.Errorf("%w: SLURM_PROCID=%d is set without SLURM_NTASKS, so the number of ranks is unknown: start the ranks with srun (which sets both), or pass --rank and --world-size", ErrRank, procid))
		}
	}
	r := Rank{Rank: procid, World: ntasks, Source: "slurm"}
	task, isArray, e3 := num("SLURM_ARRAY_TASK_ID")
	if err := errors.Join(e1, e2, e3); err != nil || !isArray {
		return r, err
	}
	lo, _, e4 := num("SLURM_ARRAY_TASK_MIN")
	count, ok, e5 := num("SLURM_ARRAY_TASK_COUNT")
	if !ok {
		hi, okMax, e := num("SLURM_ARRAY_TASK_MAX")
		if !okMax || e != nil {
			return r, errors.Join(e, fmt.Errorf("%w: array job without SLURM_ARRAY_TASK_COUNT or SLURM_ARRAY_TASK_MAX", ErrRank))
		}
		count = hi - lo + 1
	}
	// An array with a step or gaps (1-9:2) cannot be numbered densely.
	idx := task - lo
	if idx < 0 || idx >= count {
		return r, errors.Join(e4, e5, fmt.Errorf("%w: array task %d is outside %d tasks from %d: use a dense array (--array=0-N)", ErrRank, task, count, lo))
	}
	return Rank{Rank: idx*ntasks + procid, World: count * ntasks, Source: "slurm array"}, errors.Join(e4, e5)
}

// envNum reads launchers' variables as non-negative integers: set
// reports whether the variable is set and not blank.
func envNum(getenv func(string) (string, bool)) func(key string) (n int, set bool, err error) {
	return func(key string) (int, bool, error) {
		v, ok := getenv(key)
		if !ok || strings.TrimSpace(v) == "" {
			return 0, false, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return 0, true, fmt.Errorf("%w: %s=%q is not a non-negative integer", ErrRank, key, v)
		}
		return n, true, nil
	}
}

func hasEnv(getenv func(string) (string, bool), k string) bool {
	v, ok := getenv(k)
	return ok && strings.TrimSpace(v) != ""
}
