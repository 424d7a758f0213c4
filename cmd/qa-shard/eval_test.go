package main

import (
	"maps"
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
	r, err := evaluate.Evaluate(gold, answers, 512)
	if err != nil {
		t.Fatal(err)
	}
	if r.Overall.EM < 90 || r.Beyond.N == 0 || r.Beyond.EM < r.Within.EM-10 || r.Overall.Missing > 0 {
		t.Errorf("demo model: EM %.1f overall, %.1f within 512 tokens (%d), %.1f beyond (%d), %d missing",
			r.Overall.EM, r.Within.EM, r.Within.N, r.Beyond.EM, r.Beyond.N, r.Overall.Missing)
	}

	t.Logf("demo model: EM %.1f overall, %.1f within 512 tokens (%d), %.1f beyond (%d)",
		r.Overall.EM, r.Within.EM, r.Within.N, r.Beyond.EM, r.Beyond.N)

	code, stdout, errs := capture(t, func() int {
		return dispatch([]string{"eval", "--gold", "testdata/eval-gold.jsonl", "demo=" + out, out})
	})
	if code != exitOK {
		t.Fatalf("eval: exit %d: %s", code, errs)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 6 || !strings.HasPrefix(lines[4], "demo ") || !strings.HasPrefix(lines[5], "answers ") {
		t.Errorf("eval printed:\n%s\nwant gold, summary, two header lines, a demo row and an answers row", stdout)
	}

	// eval reads the other answers formats qa-shard writes: the same run
	// to a Parquet folder and to zstd JSON lines scores the same answers.
	for _, name := range []string{"answers.parquet", "answers.jsonl.zst"} {
		other := filepath.Join(t.TempDir(), name)
		if code, stderr := runCLI(t, "--devices", "cpu:2", "--model", model(t, "demo"), "--input", "testdata/eval-docs.jsonl",
			"--questions-file", "testdata/eval-questions.txt", "--output", other); code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", name, code, stderr)
		}
		got, err := evaluate.ReadAnswers(other)
		if err != nil || !maps.Equal(got, answers) {
			t.Errorf("%s read back %d answers (%v); want the %d of the JSONL run, equal", name, len(got), err, len(answers))
		}
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
		code, stdout, stderr := capture(t, func() int { return dispatch(append([]string{"eval"}, c.args...)) })
		if code != c.code || !strings.Contains(stdout+stderr, c.msg) {
			t.Errorf("eval %v: exit %d, %q; want %d and a message with %q", c.args, code, stdout+stderr, c.code, c.msg)
		}
	}
}

// TestDemoModelInt8: the int8 copy of the demo model (qa-shard quantize)
// answers the held-out corpus as well as float32: its exact match is
// within one question of float32's (make eval's 900 questions, in
// docs/accuracy.md, show the gap; this corpus has 72).
func TestDemoModelInt8(t *testing.T) {
	dir := t.TempDir()
	int8Dir := filepath.Join(dir, "demo-int8")
	if code, _, stderr := capture(t, func() int {
		return dispatch([]string{"quantize", "--model", model(t, "demo"), "--out", int8Dir, "--ort-lib", ortLib, "--log-format", "json"})
	}); code != exitOK {
		t.Fatalf("quantize: exit %d:\n%s", code, stderr)
	}
	gold, err := evaluate.ReadGold("testdata/eval-gold.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	em := map[string]float64{}
	for name, m := range map[string]string{"float32": model(t, "demo"), "int8": int8Dir} {
		out := filepath.Join(dir, name+".jsonl")
		code, stderr := runCLI(t, "--devices", "cpu:2", "--model", m, "--input", "testdata/eval-docs.jsonl",
			"--questions-file", "testdata/eval-questions.txt", "--output", out)
		if code != exitOK {
			t.Fatalf("%s: exit %d:\n%s", name, code, stderr)
		}
		answers, err := evaluate.ReadAnswers(out)
		if err != nil {
			t.Fatal(err)
		}
		r, err := evaluate.Evaluate(gold, answers, 512)
		if err != nil {
			t.Fatal(err)
		}
		em[name] = r.Overall.EM
	}
	if one := 100.0 / float64(len(gold.Questions)); em["int8"] < 90 || em["int8"] < em["float32"]-one-1e-9 {
		t.Errorf("int8 EM %.1f, float32 %.1f: want int8 at least 90 and within one question (%.1f points)", em["int8"], em["float32"], one)
	}
	t.Logf("EM on %d questions: float32 %.1f, int8 %.1f", len(gold.Questions), em["float32"], em["int8"])
}
