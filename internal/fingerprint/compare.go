package fingerprint

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"qa-shard/internal/readstate"
)

// Change is one fingerprint component that differs.
type Change struct {
	Component string // "input", "model", "settings" or "questions"
	Old, New  string // the journal's value and the current one
	// Details name what changed inside the component, when known: each
	// setting with its old and new value, each input file added, removed
	// or resized.
	Details []string
}

// String says what changed, for a person: "the settings changed
// (--top-k was 1, now 3)", or the old and new values abbreviated.
func (c Change) String() string {
	if len(c.Details) > 0 {
		return fmt.Sprintf("the %s changed (%s)", c.Component, strings.Join(c.Details, "; "))
	}
	return fmt.Sprintf("the %s changed (journal %s, now %s)", c.Component, short(c.Old), short(c.New))
}

// Compare lists the components of have (the journal's) that differ from
// want (the current run's), in a fixed order so messages are stable.
func Compare(have, want Fingerprint) []Change {
	var cs []Change
	for _, c := range []Change{
		{Component: "input", Old: have.Input, New: want.Input},
		{Component: "model", Old: have.Model, New: want.Model},
		{Component: "settings", Old: have.Settings, New: want.Settings},
		{Component: "questions", Old: have.Questions, New: want.Questions},
		{Component: "shard", Old: blockText(have.Block), New: blockText(want.Block)},
	} {
		if c.Old != c.New {
			switch c.Component {
			case "settings":
				c.Details = diffSettings(have.SettingsText, want.SettingsText)
			case "input":
				c.Details = diffInputs(have.InputText, want.InputText)
			}
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

// diffSettings lists the keys of two canonical JSON objects whose values
// differ, sorted: "--top-k was 1, now 3" (the keys are flag names). Nil
// when either is unknown (a journal that did not record them).
func diffSettings(old, now string) []string {
	return diffObjects(old, now,
		func(k, v string) string { return fmt.Sprintf("--%s was %s, and is no longer a setting", k, v) },
		func(k, v string) string { return fmt.Sprintf("--%s is new (now %s)", k, v) },
		func(k, was, v string) string { return fmt.Sprintf("--%s was %s, now %s", k, was, v) })
}

// diffInputs names the input files (keys: names, values: sizes) added,
// removed or resized since the journal: "docs-9.jsonl was added (2048
// bytes)". Nil when either list is unknown.
func diffInputs(old, now string) []string {
	return diffObjects(old, now,
		func(k, v string) string {
			return fmt.Sprintf("%s is gone%s", k, strings.Replace(bytesOf(v), "(", "(it had ", 1))
		},
		func(k, v string) string { return fmt.Sprintf("%s was added%s", k, bytesOf(v)) },
		func(k, was, v string) string { return fmt.Sprintf("%s had %s bytes, now %s", k, was, v) })
}

// bytesOf is " (N bytes)" for a size, "" for a listed name without one.
func bytesOf(v string) string {
	if v == "true" {
		return ""
	}
	return " (" + v + " bytes)"
}

// diffObjects compares two JSON objects key by key, in sorted order, and
// words each key only in old, only in now, or with another value. Nil
// when either is unknown.
func diffObjects(old, now string, gone, added func(k, v string) string, changed func(k, was, v string) string) []string {
	var a, b map[string]json.RawMessage
	if old == "" || now == "" || json.Unmarshal([]byte(old), &a) != nil || json.Unmarshal([]byte(now), &b) != nil {
		return nil
	}
	var d []string
	for _, k := range slices.Sorted(maps.Keys(a)) {
		switch v, ok := b[k]; {
		case !ok:
			d = append(d, gone(k, string(a[k])))
		case string(v) != string(a[k]):
			d = append(d, changed(k, string(a[k]), string(v)))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			d = append(d, added(k, string(b[k])))
		}
	}
	return d
}

// blockText is a block as a message names it ("" for none).
func blockText(b *readstate.Block) string {
	if b == nil {
		return ""
	}
	return b.String()
}

// Differing names the components a rank of a split run must share with
// the other ranks (every one but the block) that differ between a and b:
// "input", "model", "settings", "questions", joined by " and "; "" when
// the two are of one run. Merge refuses such ranks; status calls them
// mismatched.
func Differing(a, b Fingerprint) string {
	var d []string
	for _, c := range Compare(a, b) {
		if c.Component != "shard" {
			d = append(d, c.Component)
		}
	}
	return strings.Join(d, " and ")
}
