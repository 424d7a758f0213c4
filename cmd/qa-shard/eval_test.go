package main

import (
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/evaluate"
)

// TestDemoModelAnswers runs the trained demo model over a held-out corpus
// (tools/gencorpus seed 21, half its answers beyond token 512) and scores
// it with qa-shard eval: the answers must be right, and as right beyond
// the first 512 tokens as within them.
func TestDemoModelAnswers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	code, stderr := runCLI(t, "--devices", "cpu:2", "--model", model(t, "demo"), "--input", "testdata/eval-docs.jsonl",
		"--questions-file", "testdata/eval-questions.txt", "--output", out)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	gold, err := evaluate.ReadGold("testdata/eval-gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	answers, err := evaluate.ReadAnswers(out)
	if err != nil {
		t.Fatal(err)
	}
	r := evaluate.Evaluate(gold, answers, 512)
	if r.Overall.EM < 90 || r.Beyond.N == 0 || r.Beyond.EM < r.Within.EM-10 || r.Overall.Missing > 0 {
		t.Errorf("demo model: EM %.1f overall, %.1f within 512 tokens (%d), %.1f beyond (%d), %d missing",
			r.Overall.EM, r.Within.EM, r.Within.N, r.Beyond.EM, r.Beyond.N, r.Overall.Missing)
	}

	t.Logf("demo model: EM %.1f overall, %.1f within 512 tokens (%d), %.1f beyond (%d)",
		r.Overall.EM, r.Within.EM, r.Within.N, r.Beyond.EM, r.Beyond.N)

	code, stdout, errs := capture(t, func() int {
		return run([]string{"eval", "--gold", "testdata/eval-gold.jsonl", "demo=" + out, out})
	})
	if code != exitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[4], "demo ") || !strings.HasPrefix(lines[5], "answers ") {
		t.Errorf("eval printed:\n%s\nwant gold, summary, two header lines, a demo row and an answers row", stdout)
	}
}

// TestEvalUsage: mistakes on eval's command line or in its files are
// usage errors (exit 2) that name what is wrong.
func TestEvalUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--help"}, exitOK, "Usage: qa-shard eval"},
		{[]string{"testdata/eval-gold.jsonl"}, exitUsage, "pass --gold"},
		{[]string{"--gold", "testdata/eval-gold.jsonl"}, exitUsage, "answers files"},
		{[]string{"--gold", "testdata/nothing.jsonl", "a.jsonl"}, exitUsage, "nothing.jsonl"},
		{[]string{"--gold", "testdata/eval-gold.jsonl", "--split", "0", "a.jsonl"}, exitUsage, "--split"},
		{[]string{"--gold", "testdata/eval-gold.jsonl", "testdata/missing.jsonl"}, exitUsage, "missing.jsonl"},
		{[]string{"--gold", "testdata/eval-docs.jsonl", "testdata/eval-gold.jsonl"}, exitUsage, "eval-docs.jsonl line 1"},
		{[]string{"-gold", "testdata/eval-gold.jsonl", "a.jsonl"}, exitUsage, "two dashes"},
	} {
		code, stdout, stderr := capture(t, func() int { return run(append([]string{"eval"}, c.args...)) })
		if code != c.code || !strings.Contains(stdout+stderr, c.msg) {
			t.Errorf("eval %v: exit %d, %q; want %d and a message with %q", c.args, code, stdout+stderr, c.code, c.msg)
		}
	}
}
