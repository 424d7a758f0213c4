//go:build testhooks

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestJSONLogs: with --log-format json (or log-format: json in --config)
// every line on standard error is one JSON object, for every subcommand and
// every outcome: a complete run with its summary, record errors within and
// above --max-errors, usage and configuration errors, --check, merge,
// devices and bench.
func TestJSONLogs(t *testing.T) {
	dir := t.TempDir()
	good := writeCorpus(t, 40, 3)
	bad := writeLines(t, `{"id": "a", "context": "Ada founded the company."}`, `{"id": "b", "context": `, `{"id": "c", "context": "It moved."}`)
	jsonConfig := filepath.Join(dir, "c.yaml")
	must(t, os.WriteFile(jsonConfig, []byte("log-format: json\n"), 0o644))
	badYAML := filepath.Join(dir, "bad.yaml")
	must(t, os.WriteFile(badYAML, []byte("model: [\n"), 0o644))
	run1 := []string{"--log-format", "json", "--model", model(t, "tiny"), "--question", "Who?", "--devices", "sim:2", "--progress-interval", "1s"}
	for _, tc := range []struct {
		name string
		args []string
		code int
		msgs []string // messages some line must contain
	}{
		{"complete", append(run1, "--input", good, "--output", filepath.Join(dir, "a.jsonl")), exitOK, []string{"starting", "summary"}},
		{"record errors", append(run1, "--input", bad, "--output", filepath.Join(dir, "b.jsonl")), exitRecords,
			[]string{"summary", "completed with 1 error record ", "more than --max-errors 0"}},
		{"record errors within --max-errors", append(run1, "--input", bad, "--output", filepath.Join(dir, "c.jsonl"), "--max-errors", "34%"), exitOK,
			[]string{"summary", "within --max-errors 34%"}},
		{"already complete", append(run1, "--input", good, "--output", filepath.Join(dir, "a.jsonl"), "--resume"), exitOK, []string{"already complete"}},
		{"unknown flag", []string{"--log-format", "json", "--bogus"}, exitUsage, []string{"unknown flag: --bogus"}},
		{"format from --config", []string{"--config", jsonConfig, "--bogus"}, exitUsage, []string{"unknown flag: --bogus"}},
		{"configuration file not YAML", []string{"--log-format", "json", "--config", badYAML}, exitUsage, []string{"is not valid YAML"}},
		{"configuration: no model folder", append(run1[:0:0], "--log-format", "json", "--model", filepath.Join(dir, "missing-model"), "--input", good, "--question", "Who?"), exitUsage,
			[]string{"not found"}},
		{"check", append(run1, "--input", good, "--output", filepath.Join(dir, "chk.jsonl"), "--check"), exitOK, []string{"check passed"}},
		{"merge refused", []string{"merge", "--log-format=json", "--output", filepath.Join(dir, "m.jsonl"), good}, exitUsage, []string{"merge needs the journal"}},
		{"devices", []string{"devices", "--log-format", "json", "--bogus"}, exitUsage, []string{"unknown flag"}},
		{"bench", []string{"bench", "--log-format", "json", "--scheduling=maybe"}, exitUsage, []string{"invalid argument"}},
		{"version", []string{"version", "--log-format", "json"}, exitUsage, []string{"unknown flag: --log-format"}},
		{"quantize", []string{"quantize", "--log-format", "json", "--model", model(t, "tiny"), "--out", filepath.Join(dir, "q8"), "--ort-lib", ortLib}, exitOK,
			[]string{"MatMuls now int8", "checked on this CPU", "ONNX Runtime"}},
		{"quantize, unknown scheme", []string{"quantize", "--log-format", "json", "--model", model(t, "tiny"), "--out", filepath.Join(dir, "q7"), "--scheme", "s9"}, exitUsage,
			[]string{"no weight scheme", "choose s7"}},
		{"quantize refused", []string{"quantize", "--log-format", "json", "--model", dir, "--out", filepath.Join(dir, "q9")}, exitUsage, []string{"has no model.onnx"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--ort-lib", ortLib}, tc.args...)
			if tc.args[0] == "merge" || tc.args[0] == "devices" || tc.args[0] == "bench" || tc.args[0] == "version" || tc.args[0] == "quantize" {
				args = tc.args
			}
			code, _, stderr := capture(t, func() int { return dispatch(args) })
			if code != tc.code {
				t.Fatalf("exit %d, want %d:\n%s", code, tc.code, stderr)
			}
			lines := jsonLines(t, stderr)
			for _, m := range tc.msgs {
				if find(lines, m) == nil {
					t.Errorf("no line says %q:\n%s", m, stderr)
				}
			}
			if tc.code != exitOK {
				last := lines[len(lines)-1]
				if last["exit_code"] != float64(tc.code) || (last["level"] != "error" && last["level"] != "warn") {
					t.Errorf("the last line does not carry the exit code %d: %v", tc.code, last)
				}
			}
			if s := find(lines, "summary"); s != nil && (s["documents"] == nil || s["record_errors"] == nil || s["output"] == nil) {
				t.Errorf("summary lacks documents, record_errors or output: %v", s)
			}
		})
	}
}

// TestJSONLogsInterrupted: the interrupted path too (the signal's message,
// the final warning with exit code 75 and how to resume) is one JSON object
// a line.
func TestJSONLogsInterrupted(t *testing.T) {
	in := writeCorpus(t, 300, 4)
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	// The run pauses at document 50 until a progress line is out (once a
	// second, the least --progress-interval), and SIGUSR1 comes when
	// document 100 is read (points of progress, so the run cannot end
	// first however slow the machine).
	c := startHooked(t, []string{envPauseAt + "=50", envSignalAt + "=100:USR1"}, "--model", model(t, "tiny"), "--input", in, "--question", "Who?", "--output", out,
		"--devices", "sim:1:rate=20000", "--max-inflight-mb", "1", "--checkpoint-interval", "20ms", "--progress-interval", "1s")
	c.waitFor(t, `"msg":"progress"`)
	stderr := c.stderr
	if code := c.exit(); code != exitInterrupted {
		t.Fatalf("exit %d, want %d:\n%s", code, exitInterrupted, stderr)
	}
	lines := jsonLines(t, stderr.String())
	if l := find(lines, "SIGUSR1: reading no more documents"); l == nil || l["signal"] != "SIGUSR1" {
		t.Errorf("no JSON line for the signal:\n%s", stderr)
	}
	last := lines[len(lines)-1]
	if msg, _ := last["msg"].(string); last["exit_code"] != float64(exitInterrupted) || !strings.Contains(msg, "--resume") {
		t.Errorf("the last line does not say exit 75 and how to resume: %v", last)
	}
	if find(lines, "summary") == nil || find(lines, "progress") == nil {
		t.Errorf("no summary or progress line:\n%s", stderr)
	}
}

// TestConsoleKeepsTheTable: on a console the summary is a table for a
// person, not JSON.
func TestConsoleKeepsTheTable(t *testing.T) {
	in := writeCorpus(t, 10, 5)
	args := []string{"--ort-lib", ortLib, "--log-format", "console", "--model", model(t, "tiny"), "--input", in, "--question", "Who?",
		"--devices", "sim:1", "--output", filepath.Join(t.TempDir(), "a.jsonl")}
	code, _, stderr := capture(t, func() int { return dispatch(args) })
	if code != exitOK || !strings.Contains(stderr, "qa-shard summary\n  documents      10") || strings.Contains(stderr, `"msg"`) {
		t.Errorf("exit %d; console stderr:\n%s", code, stderr)
	}
}
