package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"qa-shard/commands/merge"
	"qa-shard/internal/isa"
	"qa-shard/internal/record"
	"qa-shard/output/logits"
	"qa-shard/quantize"
	"qa-shard/worker"
)

var int8Once struct {
	sync.Once
	dir string
	err error
}

// int8Model is the tiny model quantized, once per test binary.
func int8Model(t *testing.T) string {
	t.Helper()
	src := model(t, "tiny")
	int8Once.Do(func() {
		int8Once.dir = filepath.Join(modelsDir, "tiny-int8")
		_, int8Once.err = quantize.Dir(src, int8Once.dir, quantize.Options{})
	})
	if int8Once.err != nil {
		t.Fatal(int8Once.err)
	}
	return int8Once.dir
}

// runQuantize runs `qa-shard quantize` in-process, capturing standard error.
func runQuantize(t *testing.T, args ...string) (int, string) {
	t.Helper()
	stderrMu.Lock()
	defer stderrMu.Unlock()
	f, err := os.CreateTemp(t.TempDir(), "stderr")
	if err != nil {
		t.Fatal(err)
	}
	saved := os.Stderr
	os.Stderr = f
	code := dispatch(append([]string{"quantize"}, args...))
	os.Stderr = saved
	f.Close()
	b, _ := os.ReadFile(f.Name())
	return code, string(b)
}

func TestQuantizeCommand(t *testing.T) {
	src := model(t, "tiny")
	out := filepath.Join(t.TempDir(), "tiny-int8")
	code, stderr := runQuantize(t, "--model", src, "--out", out, "--ort-lib", ortLib)
	if code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	for _, want := range []string{"13 MatMuls now int8 (13 with the bias folded in, 0 left float32), 2 attention blocks fused", "checked", "tokenizer.json"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the summary does not say %q:\n%s", want, stderr)
		}
	}
	for _, f := range []string{"model.onnx", "tokenizer.json", "config.json", "vocab.txt"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("%s missing from the output: %v", f, err)
		}
	}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"output exists":     {[]string{"--model", src, "--out", out}, "not empty"},
		"quantized already": {[]string{"--model", out, "--out", out + "-again"}, "quantized already"},
		"no output":         {[]string{"--model", src}, "--out DIR"},
		"stray argument":    {[]string{"--model", src, "--out", out + "-x", "extra"}, "nothing else"},
		"not a model":       {[]string{"--model", t.TempDir(), "--out", out + "-y"}, "has no model.onnx"},
		"unknown scheme":    {[]string{"--model", src, "--out", out + "-z", "--scheme", "s9"}, "choose s7"},
	} {
		code, stderr := runQuantize(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want %d saying %q:\n%s", name, code, exitUsage, c.want, stderr)
		}
	}
}

// int8Run runs the int8 model over a corpus with the given layout and
// returns the answers and the logits rows.
func int8Run(t *testing.T, corpus string, layout ...string) ([]byte, []record.LogitsRow) {
	t.Helper()
	dir := t.TempDir()
	out, lg := filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits")
	args := append([]string{"--model", int8Model(t), "--input", corpus, "--question", "Who founded the company?",
		"--output", out, "--logits", lg}, layout...)
	code, stderr := runCLI(t, args...)
	if code != exitOK {
		t.Fatalf("%v: exit %d:\n%s", layout, code, stderr)
	}
	if !strings.Contains(stderr, `"padding_percent":0`) {
		t.Errorf("%v: the int8 run padded windows:\n%s", layout, stderr)
	}
	answers, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := logits.ReadDir(lg)
	if err != nil {
		t.Fatal(err)
	}
	return answers, rows
}

// TestInt8Deterministic: the int8 model's answers and logits are byte for
// byte the same whatever the replicas, threads, batch budget and
// tokenizing workers, hence whatever the timing; every window's logits
// are bit for bit those of the window run alone; and ranks merged equal
// one process.
func TestInt8Deterministic(t *testing.T) {
	corpus := writeCorpus(t, 60, 5)
	a, rowsA := int8Run(t, corpus, "--devices", "cpu:1", "--threads", "2", "--max-batch-tokens", "8192", "--tokenize-workers", "1")
	b, rowsB := int8Run(t, corpus, "--devices", "cpu:3", "--threads", "1", "--max-batch-tokens", "512", "--tokenize-workers", "4")
	if !bytes.Equal(a, b) {
		t.Fatalf("answers differ between layouts (%d vs %d bytes)", len(a), len(b))
	}
	if len(rowsA) != len(rowsB) {
		t.Fatalf("%d vs %d logits rows", len(rowsA), len(rowsB))
	}
	rep := singleReplica(t, int8Model(t))
	for i := range rowsA {
		alone := runAlone(t, rep, rowsA[i])
		for _, p := range [][2][]float32{{rowsA[i].StartLogits, rowsB[i].StartLogits}, {rowsA[i].EndLogits, rowsB[i].EndLogits},
			{rowsA[i].StartLogits, alone.Start}, {rowsA[i].EndLogits, alone.End}} {
			if !sameBits(p[0], p[1]) {
				t.Fatalf("window %d of document %v: logits differ between runs, or from the window run alone", rowsA[i].Window, rowsA[i].Pos)
			}
		}
	}

	dir := t.TempDir()
	files := runRanks(t, 3, filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits"),
		"--model", int8Model(t), "--input", corpus, "--question", "Who founded the company?", "--devices", "cpu:2", "--threads", "1")
	merged := filepath.Join(dir, "merged.jsonl")
	if err := merge.Run(append([]string{"--output", merged}, files...)); err != nil {
		t.Fatalf("merge: %v", err)
	}
	if got, _ := os.ReadFile(merged); !bytes.Equal(got, a) {
		t.Fatalf("3 ranks merged (%d bytes) differ from one process (%d bytes)", len(got), len(a))
	}
}

func sameBits(a, b []float32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Float32bits(a[i]) != math.Float32bits(b[i]) {
			return false
		}
	}
	return true
}

// TestInt8SchemeWarning: an s8 copy run on a CPU without VNNI or AMX gets
// one warning naming the instruction set, the reason and the fix; the
// default copy (s7) gets none there, and neither does s8 on a VNNI CPU.
func TestInt8SchemeWarning(t *testing.T) {
	if err := worker.Init(ortLib); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copies := map[string]*worker.Model{}
	for _, scheme := range []string{"s7", "s8"} {
		out := filepath.Join(dir, scheme)
		if code, stderr := runQuantize(t, "--model", model(t, "tiny"), "--out", out, "--scheme", scheme, "--ort-lib", ortLib); code != exitOK {
			t.Fatalf("quantize --scheme %s: exit %d:\n%s", scheme, code, stderr)
		} else if scheme == "s8" && !strings.Contains(stderr, "only on CPUs with VNNI or AMX") {
			t.Errorf("quantize --scheme s8 does not warn what the scheme needs:\n%s", stderr)
		}
		m, err := worker.OpenModel(out)
		if err != nil {
			t.Fatal(err)
		}
		copies[scheme] = m
	}
	avx2, vnni := isa.Set{AVX2: true}, isa.Set{AVX2: true, AVX512: true, VNNI: true}
	for _, c := range []struct {
		scheme string
		cpu    isa.Set
		warns  bool
	}{{"s8", avx2, true}, {"s7", avx2, false}, {"s8", vnni, false}} {
		core, logs := observer.New(zap.InfoLevel)
		quantize.WarnPrecise(zap.New(core), copies[c.scheme], c.cpu)
		got := logs.FilterLevelExact(zap.WarnLevel).All()
		if !c.warns {
			if len(got) > 0 {
				t.Errorf("%s on %s warned: %s", c.scheme, c.cpu, got[0].Message)
			}
			continue
		}
		if len(got) != 1 {
			t.Fatalf("%s on %s: %d warnings, want 1", c.scheme, c.cpu, len(got))
		}
		for _, want := range []string{"AVX2", "saturation", "exact", "qa-shard quantize", "without --scheme"} {
			if !strings.Contains(got[0].Message, want) {
				t.Errorf("%s on %s: the warning %q does not say %q", c.scheme, c.cpu, got[0].Message, want)
			}
		}
	}
}

// checkResult is the answer check's log entry (--log-format json).
type checkResult struct {
	Message   string  `json:"msg"`
	Documents int     `json:"check_documents"`
	Questions int     `json:"check_questions"`
	F1        float64 `json:"check_f1"`
	EM        float64 `json:"check_exact_match"`
	Pass      bool    `json:"check_pass"`
}

// quantizeChecked runs quantize with the answer check on the held-out
// corpus and returns the exit code, the check's log entry and stderr.
func quantizeChecked(t *testing.T, name string, args ...string) (int, checkResult, string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), name+"-int8")
	code, stderr := runQuantize(t, append([]string{"--model", model(t, name), "--out", out, "--ort-lib", ortLib, "--log-format", "json",
		"--check-input", "testdata/eval-docs.jsonl", "--questions-file", "testdata/eval-questions.txt"}, args...)...)
	var res checkResult
	for _, line := range strings.Split(stderr, "\n") {
		if strings.Contains(line, `"check_f1"`) {
			if err := json.Unmarshal([]byte(line), &res); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(out, "model.onnx")); err != nil {
		t.Errorf("%s: the int8 copy is not kept: %v", name, err)
	}
	return code, res, stderr
}

// TestQuantizeAnswerCheck: quantize --check-input answers the held-out
// corpus (12 documents, 6 questions each) with float32 and with the copy
// and scores the copy against float32's answers. The demo model's copy
// passes a threshold well below what it reaches (it agrees on about every
// answer, make eval); the tiny model (untrained weights, whose spans sit
// on near ties) loses answers to int8 on this corpus, so it fails the
// strictest threshold, 100, with exit 3 and the copy kept.
func TestQuantizeAnswerCheck(t *testing.T) {
	code, res, stderr := quantizeChecked(t, "demo", "--check-min-f1", "90")
	if code != exitOK || !res.Pass || res.Documents != 12 || res.Questions != 72 || res.F1 < 90 {
		t.Fatalf("demo, threshold 90: exit %d, %+v:\n%s", code, res, stderr)
	}
	t.Logf("demo: %s", res.Message)

	code, res, stderr = quantizeChecked(t, "tiny", "--check-min-f1", "100")
	if res.Questions != 72 || res.F1 >= 100 {
		t.Fatalf("tiny: the check found F1 %v on %d questions; this test needs a copy that loses answers (F1 below 100):\n%s", res.F1, res.Questions, stderr)
	}
	if code != exitRecords || res.Pass || !strings.Contains(stderr, "below 100.00 (--check-min-f1)") {
		t.Errorf("tiny, threshold 100: exit %d (want %d), %+v:\n%s", code, exitRecords, res, stderr)
	}
	t.Logf("tiny: %s", res.Message)

	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"check flag without input": {[]string{"--model", model(t, "tiny"), "--out", filepath.Join(t.TempDir(), "x"), "--check-docs", "5"}, "need --check-input"},
		"threshold past 100":       {[]string{"--model", model(t, "tiny"), "--out", filepath.Join(t.TempDir(), "x"), "--check-input", "a.jsonl", "--check-min-f1", "101"}, "percentage"},
	} {
		if code, stderr := runQuantize(t, c.args...); code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, want %d saying %q:\n%s", name, code, exitUsage, c.want, stderr)
		}
	}
}
