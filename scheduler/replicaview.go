package scheduler

import (
	"slices"
	"strings"

	"qa-shard/internal/words"
)

// A replica's Name is its stable identifier (metrics labels, JSON log
// fields, windows_per_replica); what a person reads in the progress bar
// and the summary table is its label, and only the replicas the run uses.

// ReplicaUse is one replica in the summary.
type ReplicaUse struct {
	Name, Label string
	Windows     int64
	Search      bool // not in the layout the run ended with: it ran while the layouts were measured
}

// labels maps each replica's Name to its label.
func labels(rs []Replica) map[string]string {
	out := make(map[string]string, len(rs))
	for _, r := range rs {
		out[r.Name()] = r.Name()
		if l := r.Label(); l != "" {
			out[r.Name()] = l
		}
	}
	return out
}

// using says whether replica is in the layout in use (true without a
// Shaper).
func (p *pipeline) using(replica string) bool {
	return p.cfg.Shaper == nil || p.cfg.Shaper.Using(replica)
}

// replicaUses is the summary's view: the replicas in use, then those of
// the layout search that ran windows; a replica that ran nothing and is
// not in use is left out.
func (p *pipeline) replicaUses(counts map[string]int64) []ReplicaUse {
	var out []ReplicaUse
	for _, r := range p.replicas {
		name := r.Name()
		u := ReplicaUse{Name: name, Label: p.labels[name], Windows: counts[name], Search: !p.using(name)}
		if u.Search && u.Windows == 0 {
			continue
		}
		out = append(out, u)
	}
	slices.SortStableFunc(out, func(a, b ReplicaUse) int {
		switch {
		case a.Search == b.Search:
			return 0
		case b.Search:
			return -1
		}
		return 1
	})
	return out
}

// shown filters per-replica values to the replicas in use now (while the
// layouts are measured, those of the layout being measured).
func (p *progress) shown(perRep map[string]float64) []string {
	var out []string
	for _, name := range sortedKeys(perRep) {
		if p.inUse == nil || p.inUse(name) {
			out = append(out, name)
		}
	}
	return out
}

func (p *progress) label(name string) string {
	if l, ok := p.labels[name]; ok {
		return l
	}
	return name
}

// replicaLines are the summary table's lines about replicas.
func replicaLines(us []ReplicaUse) []string {
	var used, search []string
	for _, u := range us {
		s := u.Label + " " + words.Count(u.Windows, "window", "windows")
		if u.Search {
			search = append(search, s)
		} else {
			used = append(used, s)
		}
	}
	var out []string
	if len(used) > 0 {
		out = append(out, "replicas       "+strings.Join(used, ", "))
	}
	if len(search) > 0 {
		out = append(out, "layout search  "+strings.Join(search, ", ")+" (sessions measured, then set aside)")
	}
	return out
}
