package status

import (
	"fmt"

	"qa-shard/internal/fingerprint"
	"qa-shard/shard"
)

// mismatched marks the ranks of a split run that cannot be merged with
// the others: run with another input, model, settings or questions (as
// merge compares them, fingerprint.Differing), or as a rank of another world
// size. The ranks of one run are those of one --output; what most of them
// ran with is the run's (the lowest rank's on a tie), and each other rank
// is mismatched, naming what differs and from which rank. A corrupt rank
// stays corrupt, with the difference added to its problem.
func mismatched(all []rankState) []rankState {
	groups := map[string][]int{}
	for i, s := range all {
		if s.fp == nil || s.World <= 1 {
			continue
		}
		base, _, _ := shard.Parse(s.Output)
		groups[base] = append(groups[base], i)
	}
	for _, idx := range groups {
		ref := majority(all, idx)
		for _, i := range idx {
			s := &all[i]
			var what string
			switch {
			case s.World != ref.World:
				what = fmt.Sprintf("is rank %d of %d, but %s (rank %d) is of %d: they are ranks of different runs", s.Rank, s.World, ref.Output, ref.Rank, ref.World)
			default:
				if d := fingerprint.Differing(*s.fp, *ref.fp); d != "" {
					what = fmt.Sprintf("ran with a different %s than %s (rank %d): merge refuses it; rerun this rank with the others' settings (--overwrite)", d, ref.Output, ref.Rank)
				}
			}
			switch {
			case what == "":
			case s.State == "corrupt":
				s.Problem += "; it also " + what
			default:
				s.State, s.Problem = "mismatched", what
			}
		}
	}
	return all
}

// majority is the rank whose world size and fingerprint most of the ranks
// at idx share (all's order, by output name, breaks ties: the lowest rank).
func majority(all []rankState, idx []int) rankState {
	best, bestN := all[idx[0]], 0
	for _, i := range idx {
		n := 0
		for _, j := range idx {
			if all[j].World == all[i].World && fingerprint.Differing(*all[j].fp, *all[i].fp) == "" {
				n++
			}
		}
		if n > bestN {
			best, bestN = all[i], n
		}
	}
	return best
}
