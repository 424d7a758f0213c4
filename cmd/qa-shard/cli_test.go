package main

import (
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestBadLinesBecomeErrorRecords: bad lines become error records in their
// place, the good ones are answered, and the exit code says 3.
func TestBadLinesBecomeErrorRecords(t *testing.T) {
	in := writeLines(t,
		`{"id": "ok1", "context": "Ada Lovelace founded the company in London."}`,
		`{"id": "broken", "context": `,
		`{"id": 7, "context": ""}`,
		`{"id": "nocontext"}`,
		`{"id": "num", "context": 42}`,
		`{"id": "ok2", "context": "The firm moved to Lisbon.", "questions": ["Where did it move?"]}`,
		"{\"id\": \"badutf8\", \"context\": \"caf\xe9\"}",
		`{"id": "emptyq", "context": "The firm moved to Lisbon.", "questions": ["", "Where did it move?"]}`,
	)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(t, "--model", model(t, "tiny"), "--input", in, "--question", "Who founded it?", "--output", out)
	if code != exitRecords {
		t.Fatalf("exit %d, want %d:\n%s", code, exitRecords, stderr)
	}
	recs := readRecords(t, out)
	var kinds []string
	for _, r := range recs {
		if _, bad := r["error"]; bad {
			kinds = append(kinds, "error:"+jsonText(r["id"]))
		} else {
			kinds = append(kinds, "answer:"+jsonText(r["id"]))
		}
	}
	want := []string{"answer:ok1", "error:<nil>", "error:7", "error:nocontext", "error:num", "answer:ok2", "answer:ok2", "error:badutf8",
		"answer:emptyq", "error:emptyq", "answer:emptyq"}
	if strings.Join(kinds, " ") != strings.Join(want, " ") {
		t.Errorf("records:\n got %v\nwant %v", kinds, want)
	}
	if first := strings.Index(mustRead(t, in), "\n") + 1; recs[1]["offset"] != float64(first) || recs[1]["file"] != "docs.jsonl" {
		t.Errorf("malformed line reported at %v %v, want docs.jsonl offset %d", recs[1]["file"], recs[1]["offset"], first)
	}
	if q := recs[9]["error"]; q == nil || !strings.Contains(q.(string), "empty") {
		t.Errorf("the empty question's record is %v, want an error saying it is empty", recs[9])
	}
	if !strings.Contains(stderr, `"record_errors":6`) || !strings.Contains(stderr, "completed with 6 error records") {
		t.Errorf("summary does not count 6 record errors:\n%s", stderr)
	}
}

func jsonText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case nil:
		return "<nil>"
	}
	return "?"
}

// TestUsageErrors: what a user gets wrong is one clear sentence and exit 2.
func TestUsageErrors(t *testing.T) {
	in := writeLines(t, `{"id": 1, "context": "text"}`)
	existing := filepath.Join(t.TempDir(), "answers.jsonl")
	must(t, os.WriteFile(existing, []byte("keep me\n"), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no model", []string{"--input", in, "--question", "q"}, "--model is required"},
		{"missing model dir", []string{"--model", "/nonexistent/model", "--input", in, "--question", "q"}, "model folder"},
		{"missing input", []string{"--model", model(t, "tiny"), "--input", "/nonexistent/docs.jsonl", "--question", "q"}, "cannot open --input"},
		{"stride too large", []string{"--model", model(t, "tiny"), "--input", in, "--doc-stride", "400"}, "stride"},
		{"gpu devices", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--devices", "0,1"}, "--devices"},
		{"existing output", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--output", existing}, "--overwrite"},
		{"unknown flag", []string{"--modle", "x"}, "unknown flag: --modle"},
		{"one dash", []string{"-model", "x"}, "long flags take two dashes: --model"},
		{"input folder without inputs", []string{"--model", model(t, "tiny"), "--input", t.TempDir(), "--question", "q"}, "holds no input files"},
		{"glob matching nothing", []string{"--model", model(t, "tiny"), "--input", filepath.Join(t.TempDir(), "*.jsonl"), "--question", "q"}, "matches no file"},
		{"bad id type", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--id-type", "uuid"}, "--id-type"},
		{"kept field clashes", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--keep-fields", "url,score"}, `have a column "score" of their own`},
		{"empty question", []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--question", " "}, "--question is empty"},
		{"positional argument", []string{"--model", model(t, "tiny"), "answers.jsonl", "--input", in}, `unexpected argument "answers.jsonl"`},
		{"resume to standard output", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--output", "-", "--resume"}, "--resume needs"},
		{"bad config value", []string{"--config", writeConfig(t, "top-k: many\n")}, "top-k"},
		{"max errors not a number", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--max-errors", "lots"}, "--max-errors"},
		{"max errors over 100%", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--max-errors", "101%"}, "--max-errors"},
		{"textfile without .prom", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--devices", "sim:1",
			"--output", filepath.Join(t.TempDir(), "a.jsonl"), "--metrics-textfile", filepath.Join(t.TempDir(), "m.txt")}, "ending in .prom"},
		{"textfile in a missing folder", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--devices", "sim:1",
			"--output", filepath.Join(t.TempDir(), "a.jsonl"), "--metrics-textfile", "/nonexistent/m.prom"}, "--metrics-textfile"},
		{"seq len over model", []string{"--model", model(t, "tiny"), "--input", in, "--question", "q", "--max-seq-len", "600"}, "max_position_embeddings"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := runCLI(t, tc.args...)
			if code != exitUsage {
				t.Fatalf("exit %d, want %d:\n%s", code, exitUsage, stderr)
			}
			if !strings.Contains(messages(t, stderr), tc.want) {
				t.Errorf("stderr lacks %q:\n%s", tc.want, stderr)
			}
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stderr has a stack trace:\n%s", stderr)
			}
		})
	}
	if b, _ := os.ReadFile(existing); string(b) != "keep me\n" {
		t.Errorf("an existing output was modified: %q", b)
	}
}

// TestMissingORTLibrary runs in a child process: ONNX Runtime can be
// loaded once per process, and this process has already loaded it.
func TestMissingORTLibrary(t *testing.T) {
	if os.Getenv("QA_SHARD_CHILD") == "1" {
		os.Exit(dispatch([]string{"--ort-lib", "/nonexistent/libonnxruntime.so", "--model", os.Getenv("QA_SHARD_MODEL"),
			"--input", os.Getenv("QA_SHARD_INPUT"), "--question", "q", "--output", os.Getenv("QA_SHARD_OUTPUT")}))
	}
	cmd := exec.Command(os.Args[0], "-test.run", "^TestMissingORTLibrary$")
	cmd.Env = append(os.Environ(), "QA_SHARD_CHILD=1", "QA_SHARD_MODEL="+model(t, "tiny"),
		"QA_SHARD_INPUT="+writeLines(t, `{"id": 1, "context": "text"}`), "QA_SHARD_OUTPUT="+filepath.Join(t.TempDir(), "a.jsonl")) // the child exits before any cleanup of its own
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitUsage {
		t.Fatalf("child exit %v, want %d:\n%s", err, exitUsage, out)
	}
	if !strings.Contains(string(out), "make ort") || strings.Contains(string(out), "goroutine ") {
		t.Errorf("message does not say how to get the library, or has a stack trace:\n%s", out)
	}
}

// TestModelVariants: exports without token_type_ids and with float16
// logits run end to end, and float16 answers match float32 ones closely.
func TestModelVariants(t *testing.T) {
	in := writeCorpus(t, 12, 3)
	for _, name := range []string{"tiny-notype", "tiny-fp16"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "answers.jsonl")
			code, stderr := runCLI(t, "--model", model(t, name), "--input", in, "--question", "Who?", "--output", out, "--top-k", "2")
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			recs := readRecords(t, out)
			if len(recs) < 12 {
				t.Fatalf("%d records for 12 documents", len(recs))
			}
			for _, r := range recs {
				if a, ok := r["answers"].([]any); !ok || len(a) == 0 || len(a) > 2 {
					t.Fatalf("top-k 2 record without a list of 1-2 answers: %v", r)
				}
			}
		})
	}
}

// TestHelp documents every flag and the exit codes, on standard output.
func TestHelp(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"run", "--help"}, {"help"}, {"-h"}} {
		code, stdout, _ := capture(t, func() int { return dispatch(args) })
		if code != exitOK {
			t.Fatalf("%q: exit %d", args, code)
		}
		for _, f := range []string{"--model", "--input", "--question", "--devices", "--max-seq-len", "--doc-stride", "--logits", "--config", "Exit codes", "75  interrupted"} {
			if !strings.Contains(stdout, f) {
				t.Errorf("%q lacks %s", args, f)
			}
		}
	}
}

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
