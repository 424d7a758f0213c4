package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"qa-shard/internal/partfolder"
	"qa-shard/journal"
	"qa-shard/output/logits"
)

// ranksAndOut writes threeRanks into a folder of their own and returns
// them, that folder and an empty one for the merged outputs.
func ranksAndOut(t *testing.T) (files []string, ranks, out string) {
	ranks, out = t.TempDir(), t.TempDir()
	return threeRanks(t, ranks), ranks, out
}

// rankFolders is threeRanks' logits folders under dir.
func rankFolders(dir string) []string {
	return []string{filepath.Join(dir, "lg.rank-00000-of-00003"), filepath.Join(dir, "lg.rank-00001-of-00003"), filepath.Join(dir, "lg.rank-00002-of-00003")}
}

// TestOverwriteKeepsRanks: a merge repeated with --overwrite (a requeued
// merge job) replaces the merged outputs with the same content and leaves
// every rank's file as it was, with the parts hard-linked and, where the
// file system refuses links, copied (the copy that once truncated the
// ranks' parts through their links).
func TestOverwriteKeepsRanks(t *testing.T) {
	for _, copied := range []bool{false, true} {
		t.Run(map[bool]string{false: "linked", true: "copied"}[copied], func(t *testing.T) {
			if copied {
				link = func(from, to string) error { return &os.LinkError{Op: "link", Old: from, New: to, Err: syscall.EXDEV} }
				t.Cleanup(func() { link = os.Link })
			}
			files, ranks, out := ranksAndOut(t)
			before := tree(t, ranks)
			opt := merged(out, "lg", files...)
			if _, err := mergeFiles(opt); err != nil {
				t.Fatal(err)
			}
			first := tree(t, out)
			opt.Overwrite = true
			for range 2 {
				if _, err := mergeFiles(opt); err != nil {
					t.Fatal(err)
				}
				sameTree(t, "the ranks after a merge --overwrite", before, tree(t, ranks))
				sameTree(t, "the merged outputs merged again", first, tree(t, out))
			}
			if got, want := logitsIDs(t, opt.Logits), concatIDs(t, rankFolders(ranks)...); !slices.Equal(got, want) {
				t.Errorf("merged rows %v, want %v", got, want)
			}
		})
	}
}

// TestTargetsAmongRanks: an --output or --logits that is, contains or
// lies inside a rank's files (through a symbolic or hard link too), or
// the other output, is refused before anything is written.
func TestTargetsAmongRanks(t *testing.T) {
	files, ranks, out := ranksAndOut(t)
	folders := rankFolders(ranks)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Link(files[2], filepath.Join(out, "hard.jsonl")))
	must(os.Symlink(folders[0], filepath.Join(out, "symlink")))
	for _, tc := range []struct {
		name           string
		output, logits string
		want           string
	}{
		{"logits is a rank's logits folder", filepath.Join(out, "m.jsonl"), folders[0], "--logits " + folders[0] + " is rank 0 of 3 (" + files[0] + ")'s logits folder"},
		{"logits contains the ranks", filepath.Join(out, "m.jsonl"), ranks, "contains rank 0 of 3"},
		{"output is a rank's answers", files[1], "", "--output " + files[1] + " is rank 1 of 3"},
		{"output inside a rank's logits folder", filepath.Join(folders[2], "m.jsonl"), "", "lies inside rank 2 of 3"},
		{"output a hard link of a rank's answers", filepath.Join(out, "hard.jsonl"), "", "is (a link of) rank 2 of 3"},
		{"logits a symbolic link to a rank's folder", filepath.Join(out, "m.jsonl"), filepath.Join(out, "symlink"), "is rank 0 of 3"},
		{"output inside logits", filepath.Join(out, "lg", "m.jsonl"), filepath.Join(out, "lg"), "lies inside --logits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before, outBefore := tree(t, ranks), tree(t, out)
			_, err := mergeFiles(options{Output: tc.output, Logits: tc.logits, Overwrite: true, Ranks: files})
			if !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v\nwant ErrTarget saying %q", err, tc.want)
			}
			sameTree(t, "the ranks after a refused merge", before, tree(t, ranks))
			sameTree(t, "the output folder after a refused merge", outBefore, tree(t, out))
		})
	}
}

// olderOutputs merges another run (2 ranks, 9 logits parts) into out's
// merged.jsonl and lg: outputs a later merge finds there.
func olderOutputs(t *testing.T, out string) {
	t.Helper()
	dir := t.TempDir()
	files := []string{
		writeRank(t, dir, rank{rank: 0, world: 2, first: 0, end: 5, settings: "s", parts: 5, logitsAt: "old-0"}),
		writeRank(t, dir, rank{rank: 1, world: 2, first: 5, end: 10, settings: "s", parts: 4, logitsAt: "old-1"}),
	}
	if res, err := mergeFiles(merged(out, "lg", files...)); err != nil || res.LogitsParts != 9 {
		t.Fatalf("the older merge: %+v, %v", res, err)
	}
}

// TestExistingLogitsReplacedWhole: a merge into an existing --logits
// folder is refused without --overwrite (nothing changed), and with it
// the folder is replaced whole: the older merge's 9 parts give way to
// this one's 4, never mixed; a folder holding anything but parts is
// refused even with --overwrite.
func TestExistingLogitsReplacedWhole(t *testing.T) {
	files, ranks, out := ranksAndOut(t)
	olderOutputs(t, out)
	if err := os.Remove(filepath.Join(out, "merged.jsonl")); err != nil {
		t.Fatal(err)
	}
	before := tree(t, out)
	opt := merged(out, "lg", files...)
	if _, err := mergeFiles(opt); !errors.Is(err, journal.ErrExists) || !strings.Contains(err.Error(), "--logits "+opt.Logits+" exists") {
		t.Errorf("an existing --logits without --overwrite: %v", err)
	}
	sameTree(t, "a refused merge's outputs", before, tree(t, out))
	opt.Overwrite = true
	if _, err := mergeFiles(opt); err != nil {
		t.Fatal(err)
	}
	parts, _ := partfolder.List(opt.Logits)
	if got, want := logitsIDs(t, opt.Logits), concatIDs(t, rankFolders(ranks)...); len(parts) != 4 || !slices.Equal(got, want) {
		t.Errorf("after --overwrite: %d parts with rows %v; want 4 with %v", len(parts), got, want)
	}
	notes := filepath.Join(opt.Logits, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = tree(t, out)
	if _, err := mergeFiles(opt); !errors.Is(err, ErrTarget) || !strings.Contains(err.Error(), "holds notes.txt") {
		t.Errorf("a folder with a file of the user's: %v", err)
	}
	sameTree(t, "a refused merge's outputs", before, tree(t, out))
}

var errInjected = errors.New("injected failure")

// TestFailureAtEveryStep: a merge failing at any of its steps (as a full
// disk or a failing rename would) removes exactly what it wrote and puts
// back what it set aside: the ranks and the output folder are as they
// were, older outputs included, and the same merge then completes.
func TestFailureAtEveryStep(t *testing.T) {
	for _, overwrite := range []bool{false, true} {
		t.Run(fmt.Sprintf("overwrite %v", overwrite), func(t *testing.T) {
			files, ranks, out := ranksAndOut(t)
			if overwrite {
				olderOutputs(t, out)
			}
			rankTree, outTree := tree(t, ranks), tree(t, out)
			opt := merged(out, "lg", files...)
			opt.Overwrite = overwrite
			for n := 0; ; n++ {
				var steps []string
				opt.Step = func(step string) error {
					steps = append(steps, step)
					if len(steps) > n {
						return errInjected
					}
					return nil
				}
				_, err := mergeFiles(opt)
				if err == nil {
					if n < 5 {
						t.Fatalf("the merge completed after %d steps: %q", n, steps)
					}
					t.Logf("failed at each of %d steps: %q", n, steps)
					break
				}
				if !errors.Is(err, errInjected) {
					t.Fatalf("failing step %d (%s): %v", n, steps[len(steps)-1], err)
				}
				sameTree(t, fmt.Sprintf("the ranks after a failure at step %d (%s)", n, steps[n]), rankTree, tree(t, ranks))
				sameTree(t, fmt.Sprintf("the outputs after a failure at step %d (%s)", n, steps[n]), outTree, tree(t, out))
				if t.Failed() || n > 100 {
					t.FailNow()
				}
			}
			if got, _ := os.ReadFile(opt.Output); string(got) != wantAnswers(10) {
				t.Errorf("merged answers:\n%s", got)
			}
			if got, want := logitsIDs(t, opt.Logits), concatIDs(t, rankFolders(ranks)...); !slices.Equal(got, want) {
				t.Errorf("merged rows %v, want %v", got, want)
			}
		})
	}
}

// TestPartsCheckedBeforeWriting: every file merge copies is checked
// against its rank's journal first; a logits part truncated or swapped
// for another rank's part, or answers edited to the same size, are
// refused naming the rank, the file and what differs, and nothing is
// written.
func TestPartsCheckedBeforeWriting(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(files, folders []string) error
		is     error
		want   []string
	}{
		{"logits part truncated", func(_, folders []string) error {
			p := partfolder.Path(folders[2], 0)
			st, err := os.Stat(p)
			if err != nil {
				return err
			}
			return os.Truncate(p, st.Size()/2)
		}, logits.ErrParts, []string{"rank 2 of 3", "part-00000.parquet (unreadable", "does not end in a Parquet footer"}},
		{"logits part of another rank", func(_, folders []string) error {
			b, err := os.ReadFile(partfolder.Path(folders[0], 1))
			if err != nil {
				return err
			}
			return os.WriteFile(partfolder.Path(folders[2], 0), b, 0o644)
		}, logits.ErrParts, []string{"rank 2 of 3", "written by another run: part-00000.parquet"}},
		{"answers edited to the same size", func(files, _ []string) error {
			b, err := os.ReadFile(files[0])
			if err != nil {
				return err
			}
			return os.WriteFile(files[0], []byte(strings.Replace(string(b), "}\n{", "},{", 1)), 0o644)
		}, journal.ErrCorrupt, []string{"rank 0 of 3", "does not match its journal", "hold 3 records"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, ranks, out := ranksAndOut(t)
			if err := tc.change(files, rankFolders(ranks)); err != nil {
				t.Fatal(err)
			}
			_, err := mergeFiles(merged(out, "lg", files...))
			if !errors.Is(err, tc.is) {
				t.Fatalf("err = %v, want %v", err, tc.is)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to say %q", err, w)
				}
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a refused merge wrote %v", entries)
			}
		})
	}
}
