package journal

import (
	"fmt"
	"strings"
)

// Change is one fingerprint component that differs.
type Change struct {
	Component string // "input", "model", "settings" or "questions"
	Old, New  string // the journal's value and the current one
}

// MismatchError says which fingerprint components changed. It matches
// ErrMismatch with errors.Is.
type MismatchError struct {
	Changes []Change
}

func (e *MismatchError) Error() string {
	var b strings.Builder
	for i, c := range e.Changes {
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "the %s changed (journal %s, now %s)", c.Component, short(c.Old), short(c.New))
	}
	b.WriteString(": --resume needs the same input, model, settings and questions as the run that wrote the journal; rerun with those, or start over with --overwrite")
	return b.String()
}

func (e *MismatchError) Is(target error) bool { return target == ErrMismatch }

// compare lists the components of have (the journal's) that differ from
// want (the current run's), in a fixed order so messages are stable.
func compare(have, want Fingerprint) []Change {
	var cs []Change
	for _, c := range []Change{
		{"input", have.Input, want.Input},
		{"model", have.Model, want.Model},
		{"settings", have.Settings, want.Settings},
		{"questions", have.Questions, want.Questions},
		{"shard", have.Shard, want.Shard},
	} {
		if c.Old != c.New {
			cs = append(cs, c)
		}
	}
	return cs
}

// short abbreviates the hashes in a fingerprint ("size=12;sha256=<64 hex>")
// to 12 characters each: enough to tell two apart in a message, short
// enough to read.
func short(fp string) string {
	if fp == "" {
		return `""`
	}
	parts := strings.Split(fp, ";")
	for i, p := range parts {
		if k, v, ok := strings.Cut(p, "="); ok && len(v) > 12 {
			parts[i] = k + "=" + v[:12]
		}
	}
	return strings.Join(parts, ";")
}
