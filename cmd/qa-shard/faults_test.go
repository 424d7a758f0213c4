package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/tokenizer"
)

// simRun runs the corpus on simulated replicas (deterministic logits from
// the token ids) and returns the exit code, output and stderr.
func simRun(t *testing.T, in, devices string, extra ...string) (int, []byte, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	args := append([]string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?",
		"--devices", devices, "--output", out, "--max-batch-tokens", "4096"}, extra...)
	code, stderr := runCLI(t, args...)
	b, _ := os.ReadFile(out)
	return code, b, stderr
}

// TestFaultsLoseNothing: out of memory, a fatal error cured by a rebuild,
// one that is not (the replica retires), and a hang ended by the batch
// timeout all end with exactly the output of a run without faults. Each
// fault strikes its replica's first batches (a replica waiting for work
// gets a batch before one that returns later), so it happens however the
// machine's load orders the replicas.
func TestFaultsLoseNothing(t *testing.T) {
	in := writeCorpus(t, 200, 31)
	code, want, stderr := simRun(t, in, "sim:3")
	if code != exitOK {
		t.Fatalf("fault-free run exit %d:\n%s", code, stderr)
	}
	for _, tc := range []struct {
		name, devices string
		extra         []string
		log           string
	}{
		{"out of memory splits batches", "sim:3:oom-above=1500", nil, `"kind":"out of memory"`},
		{"fatal then rebuilt", "sim:3:fatal-after=0@1", nil, "replica rebuilt after a fatal error"},
		{"fatal again retires", "sim:3:fatal-after=0@1:recur", nil, "retiring replica"},
		// 2s is a hundred times a batch here: only the hang reaches it,
		// however loaded the machine.
		{"hang terminated by the batch timeout", "sim:3:hang-after=0@0", []string{"--batch-timeout", "2s"}, "batch timed out"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, got, stderr := simRun(t, in, tc.devices, tc.extra...)
			if code != exitOK {
				t.Fatalf("exit %d:\n%s", code, stderr)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("output differs from the fault-free run:\n%s", stderr)
			}
			if !strings.Contains(stderr, tc.log) {
				t.Errorf("log lacks %q: the fault did not happen or was not reported:\n%s", tc.log, stderr)
			}
		})
	}
}

// TestFailingDocumentBecomesErrorRecord: a document whose window always
// fails gets an error record; every other record is as without the fault.
func TestFailingDocumentBecomesErrorRecord(t *testing.T) {
	in := writeLines(t,
		`{"id": "a", "context": "Ada founded the company in London."}`,
		`{"id": "b", "context": "The xylophone museum opened in Lisbon."}`,
		`{"id": "c", "context": "Grace moved the headquarters to Osaka."}`)
	tok, err := tokenizer.Load(filepath.Join(model(t, "tiny"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	marker := tok.Encode("xylophone").IDs[0]
	_, want, _ := simRun(t, in, "sim:2")
	code, got, stderr := simRun(t, in, fmt.Sprintf("sim:2:fail-token=%d", marker))
	if code != exitRecords {
		t.Fatalf("exit %d, want %d:\n%s", code, exitRecords, stderr)
	}
	wantLines, gotLines := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	if len(gotLines) != len(wantLines) || gotLines[0] != wantLines[0] || gotLines[2] != wantLines[2] {
		t.Fatalf("records of the other documents changed:\n%s\nvs\n%s", got, want)
	}
	var rec struct{ ID, Question, Error string }
	if err := json.Unmarshal([]byte(gotLines[1]), &rec); err != nil || rec.ID != "b" || rec.Question == "" || !strings.Contains(rec.Error, "single window") {
		t.Errorf("record for b: %s (%v)", gotLines[1], err)
	}
}

// TestAllReplicasFailedExits75: every replica failing for good stops the
// run with exit 75 and a consistent journal; resuming on healthy devices
// completes it identically.
func TestAllReplicasFailedExits75(t *testing.T) {
	in := writeCorpus(t, 60, 32)
	_, want, _ := simRun(t, in, "sim:2")
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	args := []string{"--model", model(t, "tiny"), "--input", in, "--question", "Who founded the company?", "--output", out, "--max-batch-tokens", "4096"}
	code, stderr := runCLI(t, append(args, "--devices", "sim:2:fatal-after=3:recur")...)
	if code != exitInterrupted || !strings.Contains(stderr, "every replica failed") || !strings.Contains(stderr, "--resume") {
		t.Fatalf("exit %d, want %d with a resume hint:\n%s", code, exitInterrupted, stderr)
	}
	if code, stderr := runCLI(t, append(args, "--devices", "sim:2", "--resume")...); code != exitOK {
		t.Fatalf("resume exit %d:\n%s", code, stderr)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Fatal("resumed output differs from an uninterrupted run")
	}
}
