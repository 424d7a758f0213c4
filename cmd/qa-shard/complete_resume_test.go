//go:build testhooks

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompleteResumeChecksInputs: --resume of a run that had finished
// checks its input files as a resume of an unfinished one does: a file
// replaced under the same name by other documents, one grown or shrunk,
// and another set of files are refused (exit 2), naming the file and
// saying how to start over (--overwrite), and the answers are left as
// they were; unchanged files give "already complete" (exit 0), and
// --overwrite answers the input as it is now.
func TestCompleteResumeChecksInputs(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "in")
	must(t, os.Mkdir(folder, 0o755))
	a, b := filepath.Join(folder, "a.jsonl"), filepath.Join(folder, "b.jsonl")
	must(t, os.WriteFile(a, []byte(mustRead(t, writeCorpus(t, 20, 4))), 0o644))
	must(t, os.WriteFile(b, []byte(mustRead(t, writeCorpus(t, 20, 5))), 0o644))
	out := filepath.Join(dir, "answers.jsonl")
	args := []string{"--model", model(t, "tiny"), "--input", folder, "--question", "Who founded it?", "--output", out, "--devices", "cpu:1", "--resume"}
	if code, stderr := runCLI(t, args...); code != exitOK {
		t.Fatalf("the run: exit %d:\n%s", code, stderr)
	}
	answers := mustRead(t, out)
	if code, stderr := runCLI(t, args...); code != exitOK || !strings.Contains(stderr, "already complete") {
		t.Fatalf("resume of the complete run, inputs unchanged: exit %d, want 0, already complete:\n%s", code, stderr)
	}

	original := mustRead(t, a)
	info, err := os.Stat(a)
	must(t, err)
	restore := func() { // the input the run read, its time too
		os.Remove(filepath.Join(folder, "c.jsonl"))
		must(t, os.WriteFile(a, []byte(original), 0o644))
		must(t, os.Chtimes(a, info.ModTime(), info.ModTime()))
	}
	stamp := func() { // a change the file system dates later than the run
		later := time.Now().Add(time.Hour)
		must(t, os.Chtimes(a, later, later))
	}
	for _, c := range []struct {
		name   string
		change func()
		says   []string
	}{
		{"replaced by other documents", func() {
			must(t, os.WriteFile(a+".new", []byte(mustRead(t, writeCorpus(t, 50, 9))), 0o644))
			must(t, os.Rename(a+".new", a))
			stamp()
		}, []string{a, "had", "bytes"}},
		{"grown", func() {
			must(t, os.WriteFile(a, []byte(original+mustRead(t, writeCorpus(t, 1, 11))), 0o644))
			stamp()
		}, []string{a, "had", "bytes"}},
		{"shrunk", func() {
			must(t, os.WriteFile(a, []byte(original[:strings.Index(original, "\n")+1]), 0o644))
			stamp()
		}, []string{a, "had", "bytes"}},
		{"another file set", func() {
			must(t, os.WriteFile(filepath.Join(folder, "c.jsonl"), []byte(mustRead(t, writeCorpus(t, 3, 12))), 0o644))
		}, []string{"c.jsonl was added"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.change()
			code, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, "--overwrite") {
				t.Fatalf("exit %d, want %d saying --overwrite:\n%s", code, exitUsage, stderr)
			}
			for _, w := range c.says {
				if !strings.Contains(stderr, w) {
					t.Errorf("the refusal does not say %q:\n%s", w, stderr)
				}
			}
			if mustRead(t, out) != answers {
				t.Errorf("the refused resume changed %s", out)
			}
			restore()
			if code, stderr := runCLI(t, args...); code != exitOK || !strings.Contains(stderr, "already complete") {
				t.Fatalf("the input restored: exit %d, want 0, already complete:\n%s", code, stderr)
			}
		})
	}
	overwrite := append(append([]string(nil), args[:len(args)-1]...), "--overwrite")
	must(t, os.WriteFile(a, []byte(mustRead(t, writeCorpus(t, 50, 9))), 0o644))
	if code, stderr := runCLI(t, overwrite...); code != exitOK {
		t.Fatalf("--overwrite after the input changed: exit %d:\n%s", code, stderr)
	}
	if st := journalCounts(t, out); st.Done != 70 {
		t.Errorf("--overwrite answered %d documents, want 70 (the 50 new ones and b's 20)", st.Done)
	}
}
