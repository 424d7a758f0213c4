package output

import (
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/journal"
)

// TestDiscard: the outputs a fresh run created (answers, journal, logits
// folder; a Parquet answers folder too) are removed by Discard while no
// document is saved; a folder that was there before stays; outputs with
// saved documents, and outputs a resume opened, are left as they are.
func TestDiscard(t *testing.T) {
	fp := fingerprint.Fingerprint{Input: "in", Model: "m", Settings: "s", Questions: "q"}
	for _, answers := range []string{"answers.jsonl", "answers.parquet"} {
		dir := t.TempDir()
		out, err := Open(Options{Answers: filepath.Join(dir, answers), Logits: filepath.Join(dir, "logits"), Fingerprint: fp})
		if err != nil {
			t.Fatal(err)
		}
		if err := out.Discard(); err != nil {
			t.Fatal(err)
		}
		if left, _ := os.ReadDir(dir); len(left) > 0 {
			t.Errorf("%s: Discard left %v", answers, left)
		}
	}

	dir := t.TempDir()
	lg := filepath.Join(dir, "logits")
	must(t, os.Mkdir(lg, 0o755))
	path := filepath.Join(dir, "answers.jsonl")
	out, err := Open(Options{Answers: path, Logits: lg, Overwrite: true, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	must(t, out.Discard())
	if left, _ := os.ReadDir(dir); len(left) != 1 || left[0].Name() != "logits" {
		t.Errorf("a logits folder that was there before: left %v, want it alone", left)
	}

	out, err = Open(Options{Answers: path, Fingerprint: fp})
	if err != nil {
		t.Fatal(err)
	}
	write(t, out, "a")
	must(t, out.Checkpoint(1))
	must(t, out.Discard())
	out, err = Open(Options{Answers: path, Resume: true, Fingerprint: fp})
	if err != nil || out.Skip != 1 {
		t.Fatalf("after Discard of outputs with a saved document: %v, skip %v; want them resumable at 1", err, out)
	}
	must(t, out.Discard())
	if _, err := os.Stat(journal.Path(path)); err != nil {
		t.Errorf("Discard of resumed outputs removed the journal: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
