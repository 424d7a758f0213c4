package merge

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/partfolder"
	"qa-shard/journal"
	"qa-shard/output/logits"
)

// merged returns the options of a merge of files into dir/merged.jsonl
// and, when lg is set, dir/<lg>.
func merged(dir, lg string, files ...string) options {
	o := options{Output: filepath.Join(dir, "merged.jsonl"), Ranks: files}
	if lg != "" {
		o.Logits = filepath.Join(dir, lg)
	}
	return o
}

// concatIDs is the rows of the ranks' logits folders, in rank order.
func concatIDs(t *testing.T, dirs ...string) []string {
	var ids []string
	for _, d := range dirs {
		ids = append(ids, logitsIDs(t, d)...)
	}
	return ids
}

// TestFilesConcatenatesInRankOrder: rank files given in any order are
// concatenated in rank order and the logits parts numbered on, with each
// rank's folder the one its journal records, or for older journals, which
// record none, the rank folder beside the merged one; nothing else is
// left in the folder.
func TestFilesConcatenatesInRankOrder(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(map[bool]string{false: "recorded folders", true: "older journals"}[legacy], func(t *testing.T) {
			dir := t.TempDir()
			files := threeRanks(t, dir)
			lg, folders := "lg", []string{"lg.rank-00000-of-00003", "lg.rank-00001-of-00003", "lg.rank-00002-of-00003"}
			if legacy {
				old := t.TempDir()
				files = []string{
					writeRank(t, old, rank{rank: 0, world: 2, first: 0, end: 4, settings: "s", parts: 2}),
					writeRank(t, old, rank{rank: 1, world: 2, first: 4, end: 10, settings: "s", parts: 1}),
				}
				dir, lg, folders = old, "logits", []string{"logits.rank-00000-of-00002", "logits.rank-00001-of-00002"}
			}
			before := tree(t, dir)
			given := slices.Clone(files)
			slices.Reverse(given)
			res, err := mergeFiles(merged(dir, lg, given...))
			if err != nil {
				t.Fatal(err)
			}
			if res.Ranks != len(files) || res.Documents != 10 || res.LogitsParts != map[bool]int{false: 4, true: 3}[legacy] || res.LogitsLeft != 0 {
				t.Errorf("result %+v", res)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "merged.jsonl")); string(got) != wantAnswers(10) {
				t.Errorf("merged:\n%s\nwant\n%s", got, wantAnswers(10))
			}
			for i := range folders {
				folders[i] = filepath.Join(dir, folders[i])
			}
			if got, want := logitsIDs(t, filepath.Join(dir, lg)), concatIDs(t, folders...); !slices.Equal(got, want) {
				t.Errorf("merged logits rows %v, want the ranks' %v", got, want)
			}
			after := tree(t, dir)
			for k := range after {
				if _, ok := before[k]; !ok && k != "merged.jsonl" && k != lg && !strings.HasPrefix(k, lg+string(filepath.Separator)) {
					t.Errorf("%s left in the folder", k)
				}
			}
			for k, v := range before {
				if after[k] != v {
					t.Errorf("rank file %s changed", k)
				}
			}
		})
	}
}

// TestCheckRanksRefuses: every way the ranks can fail to form one run is
// named, and nothing is written.
func TestCheckRanksRefuses(t *testing.T) {
	for _, tc := range []struct {
		name  string
		ranks func(dir string) []string
		want  string
	}{
		{"missing rank", func(dir string) []string { f := threeRanks(t, dir); return []string{f[0], f[2]} }, "rank 1 of 3 is missing"},
		{"missing rank's path", func(dir string) []string { f := threeRanks(t, dir); return []string{f[0], f[2]} },
			string(filepath.Separator) + "answers.rank-00001-of-00003.jsonl, input bytes from 4)"},
		{"duplicate rank", func(dir string) []string { f := threeRanks(t, dir); return []string{f[0], f[1], f[1], f[2]} }, "rank 1 given twice"},
		{"different settings", func(dir string) []string {
			f := threeRanks(t, dir)
			other := writeRank(t, filepath.Join(dir, "other"), rank{rank: 1, world: 3, first: 4, end: 4, settings: "top-k 2"})
			return []string{f[0], other, f[2]}
		}, "different settings"},
		{"incomplete rank", func(dir string) []string {
			return []string{
				writeRank(t, dir, rank{rank: 0, world: 2, first: 0, end: 3, total: 9, settings: "s"}),
				writeRank(t, dir, rank{rank: 1, world: 2, first: 3, end: 9, total: 9, settings: "s", incomplete: true}),
			}
		}, "rank 1 (" + "X" + ") is incomplete"},
		{"other world size", func(dir string) []string {
			return []string{
				writeRank(t, dir, rank{rank: 0, world: 2, first: 0, end: 3, total: 9, settings: "s"}),
				writeRank(t, filepath.Join(dir, "b"), rank{rank: 1, world: 3, first: 3, end: 9, total: 9, settings: "s"}),
			}
		}, "is rank 1 of 3"},
		{"gap between blocks", func(dir string) []string {
			return []string{
				writeRank(t, dir, rank{rank: 0, world: 2, first: 0, end: 3, total: 9, settings: "s"}),
				writeRank(t, dir, rank{rank: 1, world: 2, first: 4, end: 9, total: 9, settings: "s"}),
			}
		}, "rank 1 starts at input byte 4 of 9, expected 3 of 9"},
		{"file changed after the run", func(dir string) []string {
			f := threeRanks(t, dir)
			if err := os.WriteFile(f[2], []byte("edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return f
		}, "does not have the"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, sub := range []string{"other", "b"} {
				if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			out := filepath.Join(dir, "merged.jsonl")
			_, err := mergeFiles(options{Output: out, Ranks: tc.ranks(dir)})
			want := strings.Replace(tc.want, "X", filepath.Join(dir, "answers.rank-00001-of-00002.jsonl"), 1)
			if !errors.Is(err, ErrRanks) || !strings.Contains(err.Error(), want) {
				t.Errorf("err = %v\nwant ErrRanks mentioning %q", err, want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused merge wrote its output")
			}
		})
	}
}

// TestFilesErrors: a file that is not a rank's, an existing output and a
// failing write are told apart with errors.Is.
func TestFilesErrors(t *testing.T) {
	dir := t.TempDir()
	files := threeRanks(t, dir)
	if _, err := mergeFiles(options{Output: filepath.Join(dir, "m.jsonl"), Ranks: []string{filepath.Join(dir, "nothing.jsonl")}}); !errors.Is(err, journal.ErrNoJournal) {
		t.Errorf("a file without journal: %v, want journal.ErrNoJournal", err)
	}
	existing := filepath.Join(dir, "existing.jsonl")
	if err := os.WriteFile(existing, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := mergeFiles(options{Output: existing, Ranks: files}); !errors.Is(err, journal.ErrExists) {
		t.Errorf("existing output: %v, want journal.ErrExists", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep\n" {
		t.Errorf("an existing output was replaced: %q", b)
	}
	if _, err := mergeFiles(options{Output: existing, Overwrite: true, Ranks: files}); err != nil {
		t.Errorf("--overwrite: %v", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != wantAnswers(10) {
		t.Errorf("--overwrite did not replace the output: %q", b)
	}
	// The output's folder is a file: an I/O failure, not a refusal.
	_, err := mergeFiles(options{Output: filepath.Join(existing, "m.jsonl"), Ranks: files})
	if err == nil || errors.Is(err, ErrRanks) || errors.Is(err, journal.ErrExists) || errors.Is(err, ErrTarget) {
		t.Errorf("unwritable output: %v, want an I/O error", err)
	}
}

// TestLogitsFromJournals: each rank's logits folder is the one its
// journal records, whatever --logits names for the merged one; a part
// missing is found before anything is written, and the same merge runs
// again once it is back; without --logits the parts left are counted.
func TestLogitsFromJournals(t *testing.T) {
	dir := t.TempDir()
	paths := []string{
		writeRank(t, dir, rank{rank: 0, world: 2, first: 0, end: 4, settings: "s", parts: 2, logitsAt: "lg-a.rank-00000-of-00002"}),
		writeRank(t, dir, rank{rank: 1, world: 2, first: 4, end: 10, settings: "s", parts: 1, logitsAt: "lg-a.rank-00001-of-00002"}),
	}
	opt := merged(dir, "all-logits", paths...)
	missing := partfolder.Path(filepath.Join(dir, "lg-a.rank-00001-of-00002"), 0)
	if err := os.Rename(missing, missing+".away"); err != nil {
		t.Fatal(err)
	}
	_, err := mergeFiles(opt)
	if !errors.Is(err, logits.ErrParts) || !strings.Contains(err.Error(), "rank 1 of 2 ("+paths[1]+")") || !strings.Contains(err.Error(), "missing part-00000.parquet") {
		t.Fatalf("a missing part: %v", err)
	}
	for _, p := range []string{opt.Output, opt.Logits} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a refused merge left %s behind: %v", p, err)
		}
	}
	if err := os.Rename(missing+".away", missing); err != nil {
		t.Fatal(err)
	}
	res, err := mergeFiles(opt)
	if err != nil || res.LogitsParts != 3 {
		t.Fatalf("merge with the part back: %+v, %v", res, err)
	}
	want := concatIDs(t, filepath.Join(dir, "lg-a.rank-00000-of-00002"), filepath.Join(dir, "lg-a.rank-00001-of-00002"))
	if got := logitsIDs(t, opt.Logits); !slices.Equal(got, want) {
		t.Errorf("merged rows %v, want %v", got, want)
	}
	res, err = mergeFiles(options{Output: filepath.Join(dir, "no-logits.jsonl"), Ranks: paths})
	if err != nil || res.LogitsLeft != 3 || res.LogitsParts != 0 {
		t.Errorf("without --logits: %+v, %v; want the 3 parts counted as left", res, err)
	}
}
