//go:build testhooks

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/partfolder"
)

// TestResumeChecksWhatItContinues: --resume refuses (exit 2, naming what
// is wrong, changing nothing) whatever was touched between two runs: a
// logits folder that is not the run's, deleted or missing a part, a
// journal edited into other valid JSON, answers that do not end where the
// journal says. The untouched state still resumes into the output of an
// uninterrupted run.
func TestResumeChecksWhatItContinues(t *testing.T) {
	const docs = 400
	base := newResumeRun(t, docs)
	want := base.baseline()
	// Two stops, so the logits folder has at least two sealed parts.
	for _, at := range []int{100, 200} {
		c := startHooked(t, []string{fmt.Sprintf("%s=%d:USR1", envSignalAt, at)}, base.with("--resume")...)
		if code := c.exit(); code != exitInterrupted {
			t.Fatalf("stop at document %d: exit %d:\n%s", at, code, c.stderr)
		}
	}
	parts := journalInt(t, base.output, "logits_parts")
	if parts < 2 {
		t.Fatalf("the journal records %d logits parts after two stops, want 2 or more", parts)
	}
	// Another run's complete logits folder.
	other := newResumeRun(t, 30)
	if code, out := runCLI(t, other.with()...); code != exitOK {
		t.Fatalf("the other run: exit %d:\n%s", code, out)
	}
	otherParts := countParts(t, other.logits)

	for _, tc := range []struct {
		name  string
		spoil func(r resumeRun) []string // extra flags
		want  []string
	}{
		{"another logits folder", func(r resumeRun) []string { return []string{"--logits", filepath.Join(t.TempDir(), "new")} },
			[]string{"missing part-00000.parquet"}},
		{"another run's logits folder", func(r resumeRun) []string { return []string{"--logits", other.logits} },
			[]string{"written by another run: part-00000.parquet"}},
		{"logits folder deleted", func(r resumeRun) []string { os.RemoveAll(r.logits); return nil },
			[]string{"missing part-00000.parquet, part-00001.parquet"}},
		{"one logits part deleted", func(r resumeRun) []string { os.Remove(partfolder.Path(r.logits, 1)); return nil },
			[]string{"missing part-00001.parquet", "(the journal records"}},
		{"journal's byte count edited", func(r resumeRun) []string { editJournal(t, r.output, "bytes", -40); return nil },
			[]string{"corrupt journal", "checksum"}},
		{"journal's done count edited", func(r resumeRun) []string { editJournal(t, r.output, "done", 7); return nil },
			[]string{"corrupt journal", "checksum"}},
		{"answers edited", func(r resumeRun) []string { dropFirstLine(t, r.output); return nil },
			[]string{"corrupt journal", "does not match its journal"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := base.copyTo(t)
			extra := tc.spoil(r)
			journalBefore, _ := os.ReadFile(r.output + ".journal")
			code, out := runCLI(t, append(r.with("--resume"), extra...)...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d:\n%s", code, exitUsage, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("the message does not say %q:\n%s", w, out)
				}
			}
			if after, _ := os.ReadFile(r.output + ".journal"); !bytes.Equal(after, journalBefore) {
				t.Error("a refused resume changed the journal")
			}
		})
	}
	if n := countParts(t, other.logits); n != otherParts {
		t.Errorf("the other run's logits folder had %d parts and has %d after a refused resume", otherParts, n)
	}
	if code, out := runCLI(t, base.with("--resume")...); code != exitOK {
		t.Fatalf("resume of the untouched state: exit %d:\n%s", code, out)
	}
	if got, _ := os.ReadFile(base.output); !bytes.Equal(got, want) {
		t.Fatal("the resumed output differs from an uninterrupted run")
	}
	checkLogitsOnce(t, base.logits, docs)
}

// copyTo copies the run's answers, journal and logits to a new folder.
func (r resumeRun) copyTo(t *testing.T) resumeRun {
	t.Helper()
	dir := t.TempDir()
	c := r
	c.output, c.logits = filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits")
	copyFile(t, r.output, c.output)
	copyFile(t, r.output+".journal", c.output+".journal")
	if err := os.MkdirAll(c.logits, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(r.logits)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		copyFile(t, filepath.Join(r.logits, e.Name()), filepath.Join(c.logits, e.Name()))
	}
	return c
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func countParts(t *testing.T, dir string) int {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "part-*.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	return len(m)
}

// journalInt reads one number of the journal.
func journalInt(t *testing.T, output, key string) int64 {
	t.Helper()
	b, err := os.ReadFile(output + ".journal")
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	var n int64
	if err := json.Unmarshal(m[key], &n); err != nil {
		t.Fatalf("journal %s: %v", key, err)
	}
	return n
}

// editJournal changes one count of the journal by delta, as a person
// would by hand: the file stays valid JSON with plausible numbers.
func editJournal(t *testing.T, output, key string, delta int64) {
	t.Helper()
	path := output + ".journal"
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	old := journalInt(t, output, key)
	from := fmt.Sprintf(`"%s":%d`, key, old)
	if !bytes.Contains(b, []byte(from)) {
		t.Fatalf("journal has no %s", from)
	}
	b = bytes.Replace(b, []byte(from), []byte(fmt.Sprintf(`"%s":%d`, key, old+delta)), 1)
	if !json.Valid(b) {
		t.Fatal("the edited journal is not valid JSON")
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// dropFirstLine removes the answers' first record and pads the file to
// its length, so only its records, not its size, disagree with the
// journal.
func dropFirstLine(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.IndexByte(b, '\n')
	b = append(b[i+1:], bytes.Repeat([]byte{' '}, i+1)...)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOutputChecksBeforeModel: what is wrong with the outputs is said
// before any model is loaded: with a model folder that holds no model,
// the output's problem is the one reported.
func TestOutputChecksBeforeModel(t *testing.T) {
	dir := t.TempDir()
	in := writeCorpus(t, 5, 1)
	out, lg := filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits")
	noModel := t.TempDir()
	args := []string{"--model", noModel, "--input", in, "--question", "Who?", "--output", out, "--logits", lg, "--devices", "cpu"}
	must(t, os.WriteFile(out, []byte("{}\n"), 0o644))
	must(t, os.WriteFile(out+".journal", []byte(`{"version":3,"done":1}`), 0o644))
	must(t, os.MkdirAll(lg, 0o755))
	for _, tc := range []struct {
		name  string
		extra []string
		setup func()
		want  string
	}{
		{"existing output", nil, func() {}, "add --resume to continue the run that wrote it, or --overwrite"},
		{"corrupt journal", []string{"--resume"}, func() {}, "corrupt journal"},
		{"logits of another run", []string{"--resume"}, func() { os.Remove(out + ".journal"); os.Remove(out) }, "--logits " + lg + " exists, but"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.setup()
			code, stderr := runCLI(t, append(args, tc.extra...)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d saying %q:\n%s", code, exitUsage, tc.want, stderr)
			}
		})
	}
}
