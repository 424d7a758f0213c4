package output

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/journal"
	"qa-shard/internal/partfolder"
)

// TestCheckSaved: outputs are held to what their journal vouches for,
// changing nothing: a complete JSONL file of exactly the journaled length
// (truncated, grown or removed: corrupt), an unfinished one of at least
// that length; with deep, its records counted (a newline edited away at
// the same length passes the size check only). A complete Parquet folder
// holds exactly its journaled parts, each ending in a Parquet footer.
func TestCheckSaved(t *testing.T) {
	fp := journal.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
	written := func(t *testing.T, name string, finish bool) (string, journal.State) {
		t.Helper()
		path := filepath.Join(t.TempDir(), name)
		out, err := Open(Options{Answers: path, Fingerprint: fp})
		must(t, err)
		write(t, out, "a", "b")
		must(t, out.Checkpoint(2))
		write(t, out, "c")
		if finish {
			must(t, out.Finish(3))
		} else {
			must(t, out.Flush())
		}
		out.Close()
		st, err := journal.Read(path)
		must(t, err)
		return path, st
	}
	check := func(t *testing.T, path string, st journal.State, deep bool, want string) {
		t.Helper()
		err := CheckSaved(path, st, "", deep)
		switch {
		case want == "" && err != nil:
			t.Errorf("deep %v: %v, want none", deep, err)
		case want != "" && (!errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), want)):
			t.Errorf("deep %v: %v, want journal.ErrCorrupt saying %q", deep, err, want)
		}
	}

	path, st := written(t, "answers.jsonl", true)
	check(t, path, st, true, "")
	whole := mustReadFile(t, path)
	must(t, os.WriteFile(path, []byte(strings.Replace(whole, "\n", " ", 1)), 0o644))
	check(t, path, st, false, "")
	check(t, path, st, true, "hold 2 records")
	must(t, os.WriteFile(path, []byte(whole+"{}\n"), 0o644))
	check(t, path, st, false, "written to after the run")
	must(t, os.WriteFile(path, []byte(whole[:10]), 0o644))
	check(t, path, st, false, "truncated")
	must(t, os.Remove(path))
	check(t, path, st, false, "is missing")

	path, st = written(t, "answers.jsonl", false) // stopped after 2 documents, a third written
	check(t, path, st, true, "")
	must(t, os.Truncate(path, st.Bytes-1))
	check(t, path, st, false, "truncated")

	path, st = written(t, "answers.parquet", true)
	check(t, path, st, true, "")
	if st.AnswerParts != 2 {
		t.Fatalf("%d answers parts, want 2 (one per checkpoint)", st.AnswerParts)
	}
	part := mustReadFile(t, partfolder.Path(path, 1))
	must(t, os.WriteFile(partfolder.Path(path, 5), []byte(part), 0o644))
	check(t, path, st, false, "part-00005.parquet")
	must(t, os.Remove(partfolder.Path(path, 5)))
	must(t, os.WriteFile(partfolder.Path(path, 1), []byte(part[:len(part)/2]), 0o644))
	check(t, path, st, false, "part-00001.parquet")
	must(t, os.Remove(partfolder.Path(path, 1)))
	check(t, path, st, false, "part-00001.parquet is missing")
}

func mustReadFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	must(t, err)
	return string(b)
}
