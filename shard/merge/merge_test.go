package merge

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/journal"
	"qa-shard/internal/partfolder"
	"qa-shard/shard"
)

// rank describes one rank's files for writeRank.
type rank struct {
	rank, world int
	first, end  int64 // documents, and input bytes in these tests
	total       int64 // input bytes of the run (default 10)
	settings    string
	incomplete  bool   // journaled, but not finished
	parts       int    // logits parts
	logitsAt    string // the logits folder's name, recorded in the journal ("": logits.rank-..., not recorded)
}

// writeRank writes a rank's answers (one line per document), its journal
// and its logits parts under dir, as a rank of a run would, and returns
// the answers path.
func writeRank(t *testing.T, dir string, r rank) string {
	t.Helper()
	sr := shard.Rank{Rank: r.rank, World: r.world}
	path := shard.Path(filepath.Join(dir, "answers.jsonl"), sr)
	fp := journal.Fingerprint{Input: "in", Model: "model", Settings: r.settings, Questions: "q",
		Block: &shard.Block{Rank: r.rank, World: r.world, From: r.first, To: r.end, Total: cmp.Or(r.total, 10)}}
	j, err := journal.Create(path, fp)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for i := r.first; i < r.end; i++ {
		fmt.Fprintf(&b, "{\"doc\":%d}\n", i)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(b.String()); err != nil {
		t.Fatal(err)
	}
	lg := shard.Path(filepath.Join(dir, "logits"), sr)
	if r.logitsAt != "" {
		lg = filepath.Join(dir, r.logitsAt)
	}
	if err := os.MkdirAll(lg, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range r.parts {
		if err := os.WriteFile(partfolder.Path(lg, i), []byte(fmt.Sprintf("rank %d part %d", r.rank, i)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if r.logitsAt != "" {
		if err := j.Complete(f, journal.Progress{Done: r.end - r.first, Bytes: int64(b.Len()), LogitsParts: r.parts, Logits: r.logitsAt}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	finish := j.Finish
	if r.incomplete {
		finish = j.Checkpoint
	}
	if err := finish(f, r.end-r.first, int64(b.Len()), r.parts); err != nil {
		t.Fatal(err)
	}
	return path
}

// threeRanks writes a complete run of 3 ranks over 10 documents.
func threeRanks(t *testing.T, dir string) []string {
	return []string{
		writeRank(t, dir, rank{rank: 0, world: 3, first: 0, end: 4, settings: "s", parts: 2}),
		writeRank(t, dir, rank{rank: 1, world: 3, first: 4, end: 4, settings: "s"}),
		writeRank(t, dir, rank{rank: 2, world: 3, first: 4, end: 10, settings: "s", parts: 1}),
	}
}

// TestFilesConcatenatesInRankOrder: rank files given in any order are
// concatenated in rank order, and the logits parts are numbered on.
func TestFilesConcatenatesInRankOrder(t *testing.T) {
	dir := t.TempDir()
	files := threeRanks(t, dir)
	out := filepath.Join(dir, "merged.jsonl")
	res, err := Files(out, filepath.Join(dir, "logits"), false, []string{files[2], files[0], files[1]})
	if err != nil {
		t.Fatal(err)
	}
	if res != (Result{Ranks: 3, Documents: 10, LogitsParts: 3}) {
		t.Errorf("result %+v", res)
	}
	got, _ := os.ReadFile(out)
	var want strings.Builder
	for i := range 10 {
		fmt.Fprintf(&want, "{\"doc\":%d}\n", i)
	}
	if string(got) != want.String() {
		t.Errorf("merged:\n%s\nwant\n%s", got, want.String())
	}
	for i, text := range []string{"rank 0 part 0", "rank 0 part 1", "rank 2 part 0"} {
		b, err := os.ReadFile(partfolder.Path(filepath.Join(dir, "logits"), i))
		if err != nil || string(b) != text {
			t.Errorf("logits part %d: %q (%v), want %q", i, b, err, text)
		}
	}
	if _, err := os.Stat(out + ".tmp"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file left behind: %v", err)
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
			_, err := Files(out, "", false, tc.ranks(dir))
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
	if _, err := Files(filepath.Join(dir, "m.jsonl"), "", false, []string{filepath.Join(dir, "nothing.jsonl")}); !errors.Is(err, journal.ErrNoJournal) {
		t.Errorf("a file without journal: %v, want journal.ErrNoJournal", err)
	}
	existing := filepath.Join(dir, "existing.jsonl")
	if err := os.WriteFile(existing, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Files(existing, "", false, files); !errors.Is(err, journal.ErrExists) {
		t.Errorf("existing output: %v, want journal.ErrExists", err)
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep\n" {
		t.Errorf("an existing output was replaced: %q", b)
	}
	if _, err := Files(existing, "", true, files); err != nil {
		t.Errorf("--overwrite: %v", err)
	}
	// The output's folder is a file: an I/O failure, not a refusal.
	_, err := Files(filepath.Join(existing, "m.jsonl"), "", false, files)
	if err == nil || errors.Is(err, ErrRanks) || errors.Is(err, journal.ErrExists) {
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
	out, merged := filepath.Join(dir, "merged.jsonl"), filepath.Join(dir, "all-logits")
	missing := partfolder.Path(filepath.Join(dir, "lg-a.rank-00001-of-00002"), 0)
	if err := os.Rename(missing, missing+".away"); err != nil {
		t.Fatal(err)
	}
	_, err := Files(out, merged, false, paths)
	if !errors.Is(err, ErrRanks) || !strings.Contains(err.Error(), "logits part 1 of 1 is missing") {
		t.Fatalf("a missing part: %v", err)
	}
	for _, p := range []string{out, merged} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("a refused merge left %s behind: %v", p, err)
		}
	}
	if err := os.Rename(missing+".away", missing); err != nil {
		t.Fatal(err)
	}
	res, err := Files(out, merged, false, paths)
	if err != nil || res.LogitsParts != 3 {
		t.Fatalf("merge with the part back: %+v, %v", res, err)
	}
	for i, want := range []string{"rank 0 part 0", "rank 0 part 1", "rank 1 part 0"} {
		if b, err := os.ReadFile(partfolder.Path(merged, i)); err != nil || string(b) != want {
			t.Errorf("merged part %d: %q, %v; want %q", i, b, err, want)
		}
	}
	res, err = Files(filepath.Join(dir, "no-logits.jsonl"), "", false, paths)
	if err != nil || res.LogitsLeft != 3 || res.LogitsParts != 0 {
		t.Errorf("without --logits: %+v, %v; want the 3 parts counted as left", res, err)
	}
}
