package output

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/partfolder"
	"qa-shard/journal"
)

// TestCheckSaved: outputs are held to what their journal vouches for,
// changing nothing: a complete JSONL file of exactly the journaled length
// (truncated, grown or removed: corrupt), an unfinished one of at least
// that length; with deep, its records counted (a newline edited away at
// the same length passes the size check only). A complete Parquet folder
// holds exactly its journaled parts, each ending in a Parquet footer.
func TestCheckSaved(t *testing.T) {
	fp := fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
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
	// An answer changed at the same length, with as many records: only
	// the digest finds it; a journal without one (an older qa-shard's)
	// gets the other checks.
	must(t, os.WriteFile(path, []byte(strings.Replace(whole, `"b"`, `"B"`, 1)), 0o644))
	check(t, path, st, false, "")
	check(t, path, st, true, "SHA-256")
	old := st
	old.AnswersHash = ""
	check(t, path, old, true, "")
	must(t, os.WriteFile(path, []byte(whole), 0o644))
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

// TestAnswersDigest: the journal's digest of a JSONL answers file (plain,
// gzip, zstd) covers its journaled bytes across a stop and a resume, so
// the deep check passes on the resumed and finished output; a resume
// refuses answers changed in place at the same length.
func TestAnswersDigest(t *testing.T) {
	fp := fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
	for _, name := range []string{"answers.jsonl", "answers.jsonl.gz", "answers.jsonl.zst"} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), name)
			out, err := Open(Options{Answers: path, Fingerprint: fp})
			must(t, err)
			write(t, out, "a", "b")
			must(t, out.Checkpoint(2))
			write(t, out, "c") // not journaled: a resume cuts it
			must(t, out.Flush())
			out.Close()
			st, err := journal.Read(path)
			must(t, err)
			if st.AnswersHash == "" {
				t.Fatal("the checkpoint recorded no digest")
			}
			out, err = Open(Options{Answers: path, Resume: true, Fingerprint: fp})
			must(t, err)
			write(t, out, "c", "d")
			must(t, out.Finish(4))
			out.Close()
			st, err = journal.Read(path)
			must(t, err)
			if err := CheckSaved(path, st, "", true); err != nil {
				t.Fatalf("the resumed output fails its own digest: %v", err)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "answers.jsonl")
	out, err := Open(Options{Answers: path, Fingerprint: fp})
	must(t, err)
	write(t, out, "a", "b")
	must(t, out.Checkpoint(2))
	out.Close()
	must(t, os.WriteFile(path, []byte(strings.Replace(mustReadFile(t, path), `"a"`, `"z"`, 1)), 0o644))
	if _, err := Open(Options{Answers: path, Resume: true, Fingerprint: fp}); !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("resume over an answer changed in place: %v, want journal.ErrCorrupt naming the digest", err)
	}
}
