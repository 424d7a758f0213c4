package shard

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"qa-shard/internal/format"
)

// Path names a rank's own file or folder: answers.jsonl becomes
// answers.rank-00003-of-00016.jsonl, a folder logits becomes
// logits.rank-00003-of-00016. A single process keeps the path.
func Path(path string, r Rank) string {
	if r.World <= 1 || path == "" || path == "-" {
		return path
	}
	ext := format.Ext(path)
	return fmt.Sprintf("%s.rank-%05d-of-%05d%s", strings.TrimSuffix(path, ext), r.Rank, r.World, ext)
}

// Unpath is the path that Path made path from for r: path without
// r's rank suffix, or path itself when it has none.
func Unpath(path string, r Rank) string {
	if r.World <= 1 {
		return path
	}
	suffix := fmt.Sprintf(".rank-%05d-of-%05d", r.Rank, r.World)
	if stem, ok := strings.CutSuffix(path, suffix); ok {
		return stem // a path without an extension: a folder
	}
	ext := format.Ext(path)
	if stem, ok := strings.CutSuffix(strings.TrimSuffix(path, ext), suffix); ok {
		return stem + ext
	}
	return path
}

// rankSuffix is the part of a name Path adds.
var rankSuffix = regexp.MustCompile(`\.rank-(\d{5})-of-(\d{5})`)

// Parse reads the rank Path wrote into path: the path it was made from,
// the rank (Source "file name"), and whether path names a rank at all.
func Parse(path string) (string, Rank, bool) {
	m := rankSuffix.FindAllStringSubmatchIndex(path, -1)
	if len(m) == 0 {
		return path, Rank{World: 1}, false
	}
	last := m[len(m)-1]
	// Five digits each: the pattern matched, so both parse.
	rank, _ := strconv.Atoi(path[last[2]:last[3]])
	world, _ := strconv.Atoi(path[last[4]:last[5]])
	if world < 1 || rank >= world {
		return path, Rank{World: 1}, false
	}
	return path[:last[0]] + path[last[1]:], Rank{Rank: rank, World: world, Source: "file name"}, true
}

// Pattern is a filepath.Match pattern for the paths Path makes from path
// for every rank of every world.
func Pattern(path string) string {
	ext := format.Ext(path)
	return strings.TrimSuffix(path, ext) + ".rank-[0-9][0-9][0-9][0-9][0-9]-of-[0-9][0-9][0-9][0-9][0-9]" + ext
}
