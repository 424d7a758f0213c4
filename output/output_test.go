package output

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/record"
	"qa-shard/journal"
)

func write(t *testing.T, out *Outputs, ids ...string) {
	t.Helper()
	for _, id := range ids {
		if err := out.Answers.WriteError(record.ErrorRecord{ID: []byte(`"` + id + `"`), Pos: record.Position{File: "f", At: 1}, Error: "x"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFreshCheckpointResume: a fresh run journals what it checkpoints; a
// resumed one continues after it (records written after the checkpoint are
// dropped); a finished one is complete.
func TestFreshCheckpointResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "answers.jsonl")
	fp := fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
	out, err := Open(Options{Answers: path, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	write(t, out, "a", "b")
	if err := out.Checkpoint(2); err != nil {
		t.Fatal(err)
	}
	write(t, out, "c")
	out.Close() // "c" was never checkpointed

	if _, err := Open(Options{Answers: path, Fingerprint: fp}); !errors.Is(err, journal.ErrExists) {
		t.Fatalf("fresh over an existing output: %v, want journal.ErrExists", err)
	}
	if _, err := Open(Options{Answers: path, Resume: true, Fingerprint: fingerprint.Fingerprint{Input: "other"}}); !errors.Is(err, journal.ErrMismatch) {
		t.Fatalf("resume with another input: %v, want journal.ErrMismatch", err)
	}
	out, err = Open(Options{Answers: path, Resume: true, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	if out.Skip != 2 || out.Complete {
		t.Fatalf("resumed at %d (complete %v), want 2", out.Skip, out.Complete)
	}
	write(t, out, "c")
	if err := out.Finish(3); err != nil {
		t.Fatal(err)
	}
	out.Close()
	b, _ := os.ReadFile(path)
	if want := `{"id":"a","file":"f","offset":1,"error":"x"}` + "\n" + `{"id":"b","file":"f","offset":1,"error":"x"}` + "\n" + `{"id":"c","file":"f","offset":1,"error":"x"}` + "\n"; string(b) != want {
		t.Errorf("output:\n%s\nwant\n%s", b, want)
	}
	out, err = Open(Options{Answers: path, Resume: true, Fingerprint: fp})
	if err != nil || !out.Complete || out.Skip != 3 {
		t.Fatalf("resuming a finished run: %+v %v, want complete at 3", out, err)
	}
}

// TestOpenRefusals: an output without a journal cannot be resumed (a usage
// error), and one that cannot be created is an I/O error, not a refusal.
func TestOpenRefusals(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "answers.jsonl")
	if err := os.WriteFile(path, []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Options{Answers: path, Resume: true}); !errors.Is(err, journal.ErrExists) {
		t.Errorf("resume without a journal: %v, want journal.ErrExists", err)
	}
	_, err := Open(Options{Answers: filepath.Join(path, "answers.jsonl")})
	if err == nil || errors.Is(err, journal.ErrExists) {
		t.Errorf("an output under a file: %v, want an I/O error", err)
	}
	if out, err := Open(Options{Answers: path, Overwrite: true}); err != nil {
		t.Errorf("--overwrite: %v", err)
	} else {
		out.Close()
	}
}
