package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/output/logits"
)

// runRanks runs world ranks one after another with --rank/--world-size.
func runRanks(t *testing.T, world int, out, lg string, args ...string) []string {
	t.Helper()
	var files []string
	for r := range world {
		a := append([]string{"--rank", fmt.Sprint(r), "--world-size", fmt.Sprint(world), "--output", out, "--logits", lg}, args...)
		if code, stderr := runCLI(t, a...); code != exitOK {
			t.Fatalf("rank %d exit %d:\n%s", r, code, stderr)
		}
		files = append(files, strings.TrimSuffix(out, ".jsonl")+fmt.Sprintf(".rank-%05d-of-%05d.jsonl", r, world))
	}
	return files
}

// TestRanksMergeEqualsSingle: ranks answer disjoint blocks; merged, they
// are byte for byte the single-process output, logits included (found
// through the ranks' journals: the merged folder has another name); also
// with more ranks than documents. A merge without --logits says the
// ranks' logits were left unmerged.
func TestRanksMergeEqualsSingle(t *testing.T) {
	for _, tc := range []struct{ docs, world int }{{40, 3}, {5, 8}} {
		t.Run(fmt.Sprintf("%d docs %d ranks", tc.docs, tc.world), func(t *testing.T) {
			dir := t.TempDir()
			in := writeCorpus(t, tc.docs, 21)
			args := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded it?", "--devices", "cpu"}
			single := filepath.Join(dir, "single.jsonl")
			if code, stderr := runCLI(t, append([]string{"--output", single, "--logits", filepath.Join(dir, "single-logits")}, args...)...); code != exitOK {
				t.Fatalf("single exit %d:\n%s", code, stderr)
			}
			files := runRanks(t, tc.world, filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits"), args...)
			merged := filepath.Join(dir, "merged.jsonl")
			// Flags after the rank files, as an operator types them.
			margs := append(append([]string{"merge"}, files...), "--output", merged, "--logits", filepath.Join(dir, "merged-logits"))
			code, _, stderr := capture(t, func() int { return dispatch(margs) })
			if code != exitOK {
				t.Fatalf("merge exit %d:\n%s", code, stderr)
			}
			// Not a terminal: JSON, one object a line.
			if l := find(jsonLines(t, stderr), "merged"); l == nil || l["ranks"] != float64(tc.world) || l["documents"] != float64(tc.docs) {
				t.Errorf("merge's JSON line lacks ranks and documents:\n%s", stderr)
			}
			want, _ := os.ReadFile(single)
			got, _ := os.ReadFile(merged)
			if !bytes.Equal(got, want) {
				t.Fatalf("merged output (%d bytes) differs from the single-process output (%d bytes)", len(got), len(want))
			}
			a, err := logits.ReadDir(filepath.Join(dir, "single-logits"))
			if err != nil {
				t.Fatal(err)
			}
			b, err := logits.ReadDir(filepath.Join(dir, "merged-logits"))
			if err != nil {
				t.Fatal(err)
			}
			if len(a) != len(b) || a[len(a)-1].Pos != b[len(b)-1].Pos {
				t.Fatalf("merged logits have %d rows, single %d", len(b), len(a))
			}
			code, _, stderr = capture(t, func() int {
				return dispatch(append(append([]string{"merge"}, files...), "--output", filepath.Join(dir, "answers-only.jsonl")))
			})
			if code != exitOK || !strings.Contains(stderr, "add --logits DIR") {
				t.Errorf("a merge without --logits of ranks with logits: exit %d, no word of them:\n%s", code, stderr)
			}
		})
	}
}

// TestMergeExitCodes: rank files that do not form a run, an existing
// output and command-line mistakes exit 2; an I/O failure while copying
// exits 1; and nothing is written in either case.
func TestMergeExitCodes(t *testing.T) {
	dir := t.TempDir()
	in := writeCorpus(t, 12, 22)
	args := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--devices", "cpu"}
	files := runRanks(t, 3, filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "la"), args...)
	other := runRanks(t, 3, filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "lb"), append(args, "--top-k", "2")...)
	existing := filepath.Join(dir, "existing.jsonl")
	must(t, os.WriteFile(existing, []byte("keep\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing rank", []string{files[0], files[2]}, exitUsage, "rank 1 of 3 is missing"},
		{"different settings", []string{files[0], other[1], files[2]}, exitUsage, "different settings"},
		{"duplicate rank", []string{files[0], files[1], files[1], files[2]}, exitUsage, "rank 1 given twice"},
		{"not a rank file", []string{in}, exitUsage, "merge needs the journal"},
		{"no rank files", nil, exitUsage, "at least one rank file"},
		{"unknown flag", append([]string{"--outptu", "x"}, files...), exitUsage, "unknown flag: --outptu"},
		{"existing output", append([]string{"--output", existing}, files...), exitUsage, "--overwrite"},
		{"unwritable output", append([]string{"--output", filepath.Join(existing, "m.jsonl")}, files...), exitUsage, "not a directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "m.jsonl")
			a := append([]string{"merge", "--output", out}, tc.args...)
			code, _, stderr := capture(t, func() int { return dispatch(a) })
			if code != tc.code || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tc.code, tc.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused merge wrote its output")
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep\n" {
		t.Errorf("an existing output was replaced: %q", b)
	}
	// An I/O failure while copying (rank 1's answers turned into a folder
	// after its journal was written): exit 1, and nothing written.
	if err := os.Rename(files[1], files[1]+".moved"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(files[1], 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "m.jsonl")
	code, _, stderr := capture(t, func() int { return dispatch(append([]string{"merge", "--output", out}, files...)) })
	if code != exitInternal || !strings.Contains(stderr, "is a directory") {
		t.Errorf("merge with an unreadable rank file: exit %d, want %d:\n%s", code, exitInternal, stderr)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed merge left its output")
	}
}
