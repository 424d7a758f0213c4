package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/parquet-go/parquet-go"

	"qa-shard/internal/partfolder"
	"qa-shard/internal/record"
	"qa-shard/internal/testing/testtree"
	"qa-shard/output/logits"
)

// The probes of issue 33 against qa-shard merge, one test each: what a
// requeued or hostile merge did to the ranks, and what it must do.

// rankRun is a run split into ranks, with logits.
type rankRun struct {
	dir     string   // the ranks' folder
	files   []string // the ranks' answers, in rank order
	folders []string // the ranks' logits folders
	args    []string // the run's arguments but --output, --logits and the rank
}

// newRankRun runs world ranks of one run over docs documents into
// dir/name (and logits into dir/lg), one after another.
func newRankRun(t *testing.T, name string, docs, world int, extra ...string) rankRun {
	t.Helper()
	r := rankRun{dir: t.TempDir()}
	r.args = append([]string{"--model", model(t, "tiny"), "--input", writeCorpus(t, docs, 41), "--question", "Who founded it?", "--devices", "cpu"}, extra...)
	out := filepath.Join(r.dir, name)
	for k := range world {
		a := append([]string{"--rank", fmt.Sprint(k), "--world-size", fmt.Sprint(world), "--output", out, "--logits", filepath.Join(r.dir, "lg")}, r.args...)
		if code, stderr := runCLI(t, a...); code != exitOK {
			t.Fatalf("rank %d exit %d:\n%s", k, code, stderr)
		}
		r.folders = append(r.folders, filepath.Join(r.dir, fmt.Sprintf("lg.rank-%05d-of-%05d", k, world)))
	}
	r.files = rankFiles(out, world)
	return r
}

// rows is every logits row of the ranks, in rank order: what a merged
// folder must hold.
func (r rankRun) rows(t *testing.T) []record.LogitsRow {
	t.Helper()
	var rows []record.LogitsRow
	for _, f := range r.folders {
		rs, err := logits.ReadDir(f)
		if err != nil {
			t.Fatal(err)
		}
		rows = append(rows, rs...)
	}
	return rows
}

// mergeCLI runs qa-shard merge in this process.
func mergeCLI(t *testing.T, args ...string) (int, string) {
	t.Helper()
	code, _, stderr := capture(t, func() int { return dispatch(append([]string{"merge"}, args...)) })
	return code, stderr
}

// digests records dir (testtree.Of): every file's SHA-256.
func digests(t *testing.T, dir string) testtree.Tree {
	t.Helper()
	m, err := testtree.Of(dir)
	must(t, err)
	return m
}

// unchanged fails the test when dir no longer holds what before recorded.
func unchanged(t *testing.T, what string, before testtree.Tree, dir string) {
	t.Helper()
	if diff := before.Diff(digests(t, dir)); len(diff) > 0 {
		t.Errorf("%s: %s", what, strings.Join(diff, ", "))
	}
}

// olderParts fills the new folder dir with n parts copied from the
// ranks' (valid logits parts, of another merge as far as dir knows).
func olderParts(t *testing.T, r rankRun, dir string, n int) {
	t.Helper()
	must(t, os.MkdirAll(dir, 0o755))
	for i := range n {
		b, err := os.ReadFile(partfolder.Path(r.folders[i%len(r.folders)], 0))
		must(t, err)
		must(t, os.WriteFile(partfolder.Path(dir, i), b, 0o644))
	}
}

// TestMergeTwiceKeepsRanks (probe 1): merge, then the same merge with
// --overwrite twice (a requeued merge job), leaves every rank's file as
// it was and the merged logits holding the ranks' rows; a --logits that
// names one rank's own logits folder is refused (exit 2) and that folder
// left alone.
func TestMergeTwiceKeepsRanks(t *testing.T) {
	r := newRankRun(t, "a.jsonl", 30, 3)
	before := digests(t, r.dir)
	out := t.TempDir()
	args := append([]string{"--output", filepath.Join(out, "m.jsonl"), "--logits", filepath.Join(out, "lg")}, r.files...)
	for i, extra := range [][]string{nil, {"--overwrite"}, {"--overwrite"}} {
		if code, stderr := mergeCLI(t, append(args, extra...)...); code != exitOK {
			t.Fatalf("merge %d exit %d:\n%s", i+1, code, stderr)
		}
		unchanged(t, fmt.Sprintf("the ranks after merge %d", i+1), before, r.dir)
		got, err := logits.ReadDir(filepath.Join(out, "lg"))
		if err != nil || !reflect.DeepEqual(got, r.rows(t)) {
			t.Fatalf("merge %d: the merged logits (%d rows, %v) are not the ranks' rows", i+1, len(got), err)
		}
	}
	code, stderr := mergeCLI(t, append([]string{"--output", filepath.Join(out, "m2.jsonl"), "--logits", r.folders[1], "--overwrite"}, r.files...)...)
	if code != exitUsage || !strings.Contains(stderr, "is rank 1 of 3") || !strings.Contains(stderr, "logits folder") {
		t.Errorf("--logits naming rank 1's folder: exit %d, want %d naming it:\n%s", code, exitUsage, stderr)
	}
	unchanged(t, "the ranks after a refused merge into a rank's folder", before, r.dir)
}

// TestMergeIntoExistingLogits (probe 3): an existing --logits folder with
// 9 older parts is refused without --overwrite (exit 2, the parts as they
// were); with it the folder is replaced whole and reads exactly the
// ranks' rows, not those plus the older parts'.
func TestMergeIntoExistingLogits(t *testing.T) {
	r := newRankRun(t, "a.jsonl", 30, 3)
	out := t.TempDir()
	lg := filepath.Join(out, "lg")
	olderParts(t, r, lg, 9)
	before := digests(t, out)
	args := append([]string{"--output", filepath.Join(out, "m.jsonl"), "--logits", lg}, r.files...)
	if code, stderr := mergeCLI(t, args...); code != exitUsage || !strings.Contains(stderr, "--overwrite") {
		t.Errorf("merge into an existing --logits: exit %d, want %d saying --overwrite:\n%s", code, exitUsage, stderr)
	}
	unchanged(t, "the folder after a refused merge", before, out)
	if code, stderr := mergeCLI(t, append(args, "--overwrite")...); code != exitOK {
		t.Fatalf("with --overwrite: exit %d:\n%s", code, stderr)
	}
	got, err := logits.ReadDir(lg)
	if want := r.rows(t); err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("after --overwrite the folder reads %d rows (%v), want the ranks' %d", len(got), err, len(want))
	}
	if parts, _ := partfolder.List(lg); len(parts) != len(r.folders) {
		t.Errorf("%d parts after --overwrite, want the ranks' %d", len(parts), len(r.folders))
	}
}

// TestMergeDiskFullKeepsOlderParts (probe 2): a merge --overwrite that
// fills the disk fails and leaves the 9 parts already in --logits, the
// rest of the disk and the ranks as they were, nothing of its own
// behind; once space is freed the same command completes.
func TestMergeDiskFullKeepsOlderParts(t *testing.T) {
	r := newRankRun(t, "a.jsonl", 30, 3)
	tmp := tmpfs(t, "16m")
	lg := filepath.Join(tmp, "lg")
	olderParts(t, r, lg, 9)
	need := int64(0)
	for _, f := range r.folders {
		st, err := os.Stat(partfolder.Path(f, 0))
		must(t, err)
		need += st.Size()
	}
	var fsStat syscall.Statfs_t
	must(t, syscall.Statfs(tmp, &fsStat))
	room := int64(fsStat.Bavail) * fsStat.Bsize
	filler := filepath.Join(tmp, "filler")
	must(t, os.WriteFile(filler, make([]byte, room-need/2), 0o644)) // room for half the parts
	before, ranks := digests(t, tmp), digests(t, r.dir)
	args := append([]string{"--output", filepath.Join(tmp, "m.jsonl"), "--logits", lg, "--overwrite"}, r.files...)
	code, stderr := mergeCLI(t, args...)
	if code != exitInternal || !strings.Contains(stderr, "no space left on device") {
		t.Errorf("merge onto a full disk: exit %d, want %d saying so:\n%s", code, exitInternal, stderr)
	}
	unchanged(t, "the disk after a merge that filled it", before, tmp)
	unchanged(t, "the ranks after a merge that filled the disk", ranks, r.dir)
	must(t, os.Remove(filler))
	if code, stderr := mergeCLI(t, args...); code != exitOK {
		t.Fatalf("the same merge with space freed: exit %d:\n%s", code, stderr)
	}
	if got, err := logits.ReadDir(lg); err != nil || !reflect.DeepEqual(got, r.rows(t)) {
		t.Errorf("the merged logits after space was freed: %d rows (%v), want the ranks' rows", len(got), err)
	}
}

// TestMergeChecksParts (probe 4): a rank's logits part truncated or
// swapped for another rank's part, or a rank's Parquet answers part
// truncated or swapped, is refused before anything is written (exit 2),
// naming the rank, the file and what differs.
func TestMergeChecksParts(t *testing.T) {
	jl := newRankRun(t, "a.jsonl", 30, 3)
	pq := newRankRun(t, "a.parquet", 30, 3)
	truncate := func(path string) func() {
		return func() {
			st, err := os.Stat(path)
			must(t, err)
			must(t, os.Truncate(path, st.Size()/2))
		}
	}
	swap := func(from, to string) func() {
		return func() {
			b, err := os.ReadFile(from)
			must(t, err)
			must(t, os.WriteFile(to, b, 0o644))
		}
	}
	for _, tc := range []struct {
		name   string
		ranks  rankRun
		change func()
		want   []string
	}{
		{"logits part truncated", jl, truncate(partfolder.Path(jl.folders[1], 0)), []string{"rank 1 of 3", "part-00000.parquet (unreadable"}},
		{"logits part of another rank", jl, swap(partfolder.Path(jl.folders[0], 0), partfolder.Path(jl.folders[2], 0)),
			[]string{"rank 2 of 3", "written by another run: part-00000.parquet"}},
		{"answers part truncated", pq, truncate(partfolder.Path(pq.files[1], 0)), []string{"rank 1 of 3", filepath.Join(pq.files[1], "part-00000.parquet") + " cannot be read"}},
		{"answers part of another rank", pq, swap(partfolder.Path(pq.files[0], 0), partfolder.Path(pq.files[2], 0)),
			[]string{"rank 2 of 3", filepath.Join(pq.files[2], "part-00000.parquet") + " was written by another run"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			saved := map[string][]byte{}
			for _, f := range append(append([]string{}, tc.ranks.folders...), tc.ranks.files...) {
				parts, _ := partfolder.List(f)
				for _, p := range parts {
					b, err := os.ReadFile(p)
					must(t, err)
					saved[p] = b
				}
			}
			t.Cleanup(func() {
				for p, b := range saved {
					must(t, os.WriteFile(p, b, 0o644))
				}
			})
			tc.change()
			out := t.TempDir()
			name := "m" + filepath.Ext(tc.ranks.files[0])
			code, stderr := mergeCLI(t, append([]string{"--output", filepath.Join(out, name), "--logits", filepath.Join(out, "lg")}, tc.ranks.files...)...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d:\n%s", code, exitUsage, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if entries, _ := os.ReadDir(out); len(entries) != 0 {
				t.Errorf("a refused merge left %v", entries)
			}
		})
	}
}

// TestMergeOutputFormats (probe 5): the merged answers have the format
// their name says, whatever the ranks wrote: JSONL ranks into .jsonl.gz
// and .jsonl.zst (the single process's text) and into .parquet (the
// single process's rows and schema, kept fields, top-k lists and error
// records included), gzip ranks into .jsonl (the single process's
// bytes); Parquet ranks into .jsonl are refused, as a name that says no
// format is, by merges and runs alike (exit 2, the accepted endings
// listed, nothing written).
func TestMergeOutputFormats(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	must(t, os.WriteFile(bad, []byte("{\"id\":\"b1\",\"context\":\"Founded by Ada in Lisbon.\",\"url\":\"u\"}\nnot json\n"), 0o644))
	extra := []string{"--keep-fields", "url", "--top-k", "2", "--max-errors", "10", "--input", bad}
	jl := newRankRun(t, "a.jsonl", 24, 3, extra...)
	gz := newRankRun(t, "a.jsonl.gz", 24, 3, extra...)
	pq := newRankRun(t, "a.parquet", 24, 3, extra...)
	one := func(name string) string {
		path := filepath.Join(t.TempDir(), name)
		if code, stderr := runCLI(t, append([]string{"--output", path}, jl.args...)...); code != exitOK {
			t.Fatalf("single %s exit %d:\n%s", name, code, stderr)
		}
		return path
	}
	wantText, wantParquet := one("s.jsonl"), one("s.parquet")
	if !strings.Contains(string(answerText(t, wantText)), `"error":`) || !strings.Contains(string(answerText(t, wantText)), `"answers":[`) {
		t.Fatal("the single run has no error record or top-k list to convert")
	}
	out := t.TempDir()
	for _, tc := range []struct {
		ranks rankRun
		name  string
	}{{jl, "m.jsonl.gz"}, {jl, "m.jsonl.zst"}, {jl, "m.parquet"}, {gz, "m.jsonl"}, {gz, "m2.parquet"}, {pq, "m3.parquet"}} {
		path := filepath.Join(out, tc.name)
		if code, stderr := mergeCLI(t, append([]string{"--output", path}, tc.ranks.files...)...); code != exitOK {
			t.Fatalf("merge of %s into %s: exit %d:\n%s", tc.ranks.files[0], tc.name, code, stderr)
		}
		switch {
		case strings.HasSuffix(tc.name, ".parquet"):
			if got, want := answerRecords(t, path), answerRecords(t, wantParquet); !reflect.DeepEqual(got, want) {
				t.Errorf("%s: %d rows, not the single run's %d", tc.name, len(got), len(want))
			}
			if got, want := parquetSchema(t, path), parquetSchema(t, wantParquet); got != want {
				t.Errorf("%s: schema\n%s\nwant the single run's\n%s", tc.name, got, want)
			}
		case tc.name == "m.jsonl":
			if got, want := mustRead(t, path), mustRead(t, wantText); got != want {
				t.Errorf("%s: not the single run's bytes", tc.name)
			}
		default:
			if !bytes.Equal(answerText(t, path), answerText(t, wantText)) {
				t.Errorf("%s: not the single run's text", tc.name)
			}
			if f, _ := os.ReadFile(path); bytes.HasPrefix(f, []byte("{")) {
				t.Errorf("%s holds plain JSONL", tc.name)
			}
		}
	}
	code, stderr := mergeCLI(t, append([]string{"--output", filepath.Join(out, "p.jsonl")}, pq.files...)...)
	if code != exitUsage || !strings.Contains(stderr, "name the merged output .parquet") {
		t.Errorf("Parquet ranks into .jsonl: exit %d, want %d:\n%s", code, exitUsage, stderr)
	}
	for _, name := range []string{"x.jsonl.bz2", "x.jsonl.xz", "x.csv"} {
		path := filepath.Join(out, name)
		code, stderr := mergeCLI(t, append([]string{"--output", path}, jl.files...)...)
		if code != exitUsage || !strings.Contains(stderr, ".jsonl, .ndjson, .jsonl.gz") || !strings.Contains(stderr, ".parquet") {
			t.Errorf("merge --output %s: exit %d, want %d listing the accepted endings:\n%s", name, code, exitUsage, stderr)
		}
		code, stderr = runCLI(t, append([]string{"--output", path}, jl.args...)...)
		if code != exitUsage || !strings.Contains(messages(t, stderr), ".jsonl, .ndjson, .jsonl.gz") {
			t.Errorf("run --output %s: exit %d, want %d listing the accepted endings:\n%s", name, code, exitUsage, stderr)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s was written", name)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "p.jsonl")); err == nil {
		t.Error("a refused merge wrote p.jsonl")
	}
}

// parquetSchema is the schema of the first part of a Parquet answers
// folder.
func parquetSchema(t *testing.T, dir string) string {
	t.Helper()
	f, err := os.Open(partfolder.Path(dir, 0))
	must(t, err)
	defer f.Close()
	st, err := f.Stat()
	must(t, err)
	pf, err := parquet.OpenFile(f, st.Size())
	must(t, err)
	return pf.Schema().String()
}
