package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
)

// TestCorruptInputKeepsWhatWasAnswered: damaged or truncated gzip data
// stops the run with exit 2 naming the file and the compressed byte;
// every document before the damage is answered and journaled; --resume
// hits the same damage without redoing them. A truncated file replaced by
// the whole one is resumed to what an uninterrupted run writes. (Text a
// damaged member yields before gzip notices, at the member's CRC, differs
// from the good copy's: --resume then refuses, which the input tests show.)
func TestCorruptInputKeepsWhatWasAnswered(t *testing.T) {
	recs := corpusRecords(t, writeCorpus(t, 200, 51))
	good := toText(t, recs, "docs.jsonl.gz", 16<<10)
	b, _ := os.ReadFile(good)
	damaged := append([]byte(nil), b...)
	for i := len(b) * 3 / 4; i < len(b)*3/4+50; i++ {
		damaged[i] ^= 0x33
	}
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{{"damaged", damaged, "is corrupt"}, {"truncated", b[:len(b)*3/4], "ends early"}} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, "docs.jsonl.gz")
			must(t, os.WriteFile(in, tc.data, 0o644))
			out := filepath.Join(dir, "answers.jsonl")
			args := []string{"--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:2", "--input", in, "--output", out}
			code, stderr := runCLI(t, args...)
			if code != exitUsage || !strings.Contains(stderr, "docs.jsonl.gz") || !strings.Contains(stderr, "compressed byte") || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, want %d naming the file and byte:\n%s", code, exitUsage, stderr)
			}
			done := journalDone(out)
			if done < 100 || done >= 200 {
				t.Fatalf("journal vouches for %d documents; the damage is three quarters in", done)
			}
			if code, stderr = runCLI(t, append(args, "--resume")...); code != exitUsage || journalDone(out) != done {
				t.Fatalf("resume over the same damage: exit %d, done %d (was %d):\n%s", code, journalDone(out), done, stderr)
			}
			if tc.name == "damaged" {
				return
			}
			must(t, os.WriteFile(in, b, 0o644))
			if code, stderr = runCLI(t, append(args, "--resume")...); code != exitOK {
				t.Fatalf("resume after replacing the file: exit %d:\n%s", code, stderr)
			}
			base := filepath.Join(dir, "base.jsonl")
			if code, stderr := runCLI(t, "--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:2", "--input", good, "--output", base); code != exitOK {
				t.Fatalf("baseline exit %d:\n%s", code, stderr)
			}
			if mustRead(t, out) != mustRead(t, base) {
				t.Fatal("the resumed output differs from an uninterrupted run's")
			}
		})
	}
}

// TestBadInputs: a Parquet file without the context column lists its
// columns; an output inside an input folder is refused; all exit 2.
func TestBadInputs(t *testing.T) {
	dir := t.TempDir()
	pq := filepath.Join(dir, "nocontext.parquet")
	type row struct {
		ID   string `parquet:"id"`
		Text string `parquet:"text"`
	}
	must(t, corpus.WriteParquet(pq, []row{{"a", "hello"}}, 10))
	folder := filepath.Join(dir, "in")
	must(t, os.MkdirAll(folder, 0o755))
	must(t, os.WriteFile(filepath.Join(folder, "a.jsonl"), []byte(`{"id": "a", "context": "c"}`+"\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no context column", []string{"--input", pq}, `has no column`},
		{"no context column lists the columns", []string{"--input", pq}, "its columns are: id, text"},
		{"output inside the input folder", []string{"--input", folder, "--output", filepath.Join(folder, "answers.jsonl")}, "inside the input folder"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := append([]string{"--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:1", "--output", filepath.Join(t.TempDir(), "a.jsonl")}, tc.args...)
			if code, stderr := runCLI(t, a...); code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, want %d with %q:\n%s", code, exitUsage, tc.want, stderr)
			}
		})
	}
	// The context found under another name works.
	code, stderr := runCLI(t, "--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:1", "--input", pq, "--context-field", "text", "--output", filepath.Join(dir, "ok.jsonl"))
	if code != exitOK {
		t.Errorf("--context-field text: exit %d:\n%s", code, stderr)
	}
}

// TestStdinCompressed: gzip data piped to --input - is recognised by its
// magic bytes; default ids name standard input.
func TestStdinCompressed(t *testing.T) {
	recs := corpusRecords(t, writeCorpus(t, 20, 61))
	for _, r := range recs {
		delete(r, "id")
	}
	gz := toText(t, recs, "docs.jsonl.gz", 0)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	cmd := exec.Command(os.Args[0], "--ort-lib", ortLib, "--log-format", "json", "--model", model(t, "tiny"), "--question", "Who?",
		"--devices", "sim:1", "--input", "-", "--output", out)
	cmd.Env = append(os.Environ(), envAsMain+"=1")
	f, _ := os.Open(gz)
	defer f.Close()
	cmd.Stdin = f
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v:\n%s", err, b)
	}
	recsOut := readRecords(t, out)
	if len(recsOut) != 24 || recsOut[0]["id"] != "stdin:0" {
		t.Fatalf("%d records, first id %v", len(recsOut), recsOut[0]["id"])
	}
}

// TestIDTypeAcrossOutputs: integer ids stay integers in the JSONL answers,
// the Parquet answers and the logits, so they join without a cast.
func TestIDTypeAcrossOutputs(t *testing.T) {
	in := writeLines(t, `{"id": 17, "context": "Ada founded the company in Paris."}`, `{"id": 18, "context": "It moved to Berlin."}`)
	dir := t.TempDir()
	args := []string{"--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:1", "--input", in}
	jl, pq, lg := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "a.parquet"), filepath.Join(dir, "logits")
	if code, stderr := runCLI(t, append(args, "--output", jl, "--logits", lg)...); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if code, stderr := runCLI(t, append(args, "--output", pq)...); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.HasPrefix(mustRead(t, jl), `{"id":17,`) {
		t.Errorf("JSONL: %s", mustRead(t, jl))
	}
	rows, err := corpus.ReadParquet(pq)
	must(t, err)
	if id, ok := rows[0]["id"].(int64); !ok || id != 17 {
		t.Errorf("Parquet answers id %#v, want int64 17", rows[0]["id"])
	}
	lrows, err := corpus.ReadParquet(lg)
	must(t, err)
	if id, ok := lrows[len(lrows)-1]["id"].(int64); !ok || id != 18 {
		t.Errorf("logits id %#v, want int64 18", lrows[len(lrows)-1]["id"])
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
