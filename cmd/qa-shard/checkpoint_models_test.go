package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"qa-shard/internal/testing/testfixtures"
	"qa-shard/internal/testing/testmodel"
	"qa-shard/output/logits"
)

var (
	checkpointsOnce sync.Once
	checkpointsDir  string
	checkpointsErr  error
)

// checkpoints is the folder of testmodel.Checkpoints, generated once.
func checkpoints(t *testing.T) string {
	t.Helper()
	checkpointsOnce.Do(func() {
		checkpointsDir = filepath.Join(modelsDir, "checkpoints")
		checkpointsErr = testfixtures.GenerateCheckpoints(checkpointsDir)
	})
	if checkpointsErr != nil {
		t.Fatalf("checkpoint models: %v", checkpointsErr)
	}
	return checkpointsDir
}

// referenceQuestions are the questions tools/reference/answers.py asked.
var referenceQuestions = []string{"Who founded the company?", "Where is the headquarters?"}

// TestCheckpointAnswersEqualTransformers: every family's checkpoint
// folder (config.json and safetensors, no model.onnx: testmodel.
// Checkpoints) is answered from the graph qa-shard builds from its
// weights (the standard graph and the fused one: --graph), and the
// answers equal those transformers' real
// QuestionAnsweringPipeline (4.57) gave for the same folder
// (testdata/reference, written by make reference-goldens): text and
// offsets exactly, scores within 1e-4. Under make test-reference the
// answers are those of a fresh pipeline run (QA_SHARD_REFERENCE_ANSWERS),
// and every window's start and end logits are also compared with torch's
// (QA_SHARD_REFERENCE_LOGITS): within 1e-4.
func TestCheckpointAnswersEqualTransformers(t *testing.T) {
	cks := checkpoints(t)
	cache := t.TempDir()
	for _, c := range testmodel.Checkpoints {
		for _, graph := range []string{"standard", "fused"} {
			t.Run(c.Name+"/"+graph, func(t *testing.T) {
				dir := t.TempDir()
				out, lg := filepath.Join(dir, "answers.jsonl"), filepath.Join(dir, "logits")
				args := []string{"--devices", "cpu:1", "--model", filepath.Join(cks, c.Name), "--model-cache", cache, "--graph", graph,
					"--input", "testdata/golden-docs.jsonl", "--top-k", "2", "--output", out, "--logits", lg}
				for _, q := range referenceQuestions {
					args = append(args, "--question", q)
				}
				if code, stderr := runCLI(t, args...); code != exitOK {
					t.Fatalf("exit %d:\n%s", code, stderr)
				}
				golden := filepath.Join("testdata", "reference", c.Name+".jsonl")
				if fresh := os.Getenv("QA_SHARD_REFERENCE_ANSWERS"); fresh != "" {
					golden = filepath.Join(fresh, c.Name+".jsonl")
				}
				compareReferenceAnswers(t, out, golden)
				if dir := os.Getenv("QA_SHARD_REFERENCE_LOGITS"); dir != "" {
					compareReferenceLogits(t, lg, filepath.Join(dir, c.Name+".json"))
				}
			})
		}
	}
}

func compareReferenceAnswers(t *testing.T, got, golden string) {
	t.Helper()
	b, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (make test-reference writes it)", err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")[1:] // the first names the versions
	recs := readRecords(t, got)
	if len(recs) != len(lines) {
		t.Fatalf("%d records, the reference has %d", len(recs), len(lines))
	}
	type answer struct {
		Answer     string
		Score      float64
		Start, End int
	}
	for i, line := range lines {
		var want struct {
			ID       any
			Question string
			Answers  []answer
		}
		must(t, json.Unmarshal([]byte(line), &want))
		rec := recs[i]
		var have []answer
		for _, a := range rec["answers"].([]any) {
			m := a.(map[string]any)
			have = append(have, answer{m["answer"].(string), m["score"].(float64), int(m["start"].(float64)), int(m["end"].(float64))})
		}
		if fmt.Sprint(rec["id"]) != fmt.Sprint(want.ID) || rec["question"] != want.Question || len(have) != len(want.Answers) {
			t.Fatalf("record %d: %v, the reference %s", i, rec, line)
		}
		for k, w := range want.Answers {
			h := have[k]
			if h.Answer != w.Answer || h.Start != w.Start || h.End != w.End || math.Abs(h.Score-w.Score) > 1e-4 {
				t.Errorf("%s %q answer %d: %+v, transformers %+v", want.ID, want.Question, k, h, w)
			}
		}
	}
}

func compareReferenceLogits(t *testing.T, folder, reference string) {
	t.Helper()
	b, err := os.ReadFile(reference)
	if err != nil {
		t.Fatal(err)
	}
	var windows map[string][2][]float64
	must(t, json.Unmarshal(b, &windows))
	rows, err := logits.ReadDir(folder)
	if err != nil {
		t.Fatal(err)
	}
	worst, seen, big := 0.0, 0, 0.0
	for _, r := range rows {
		ids := make([]string, len(r.InputIDs))
		for i, id := range r.InputIDs {
			ids[i] = strconv.Itoa(int(id))
		}
		w, ok := windows[strings.Join(ids, " ")]
		if !ok {
			t.Errorf("window %d of %v (%q) was not run by the pipeline", r.Window, r.ID, r.Question)
			continue
		}
		seen++
		for i := range r.StartLogits {
			worst = max(worst, math.Abs(float64(r.StartLogits[i])-w[0][i]), math.Abs(float64(r.EndLogits[i])-w[1][i]))
			big = max(big, math.Abs(w[0][i]), math.Abs(w[1][i]))
		}
	}
	if worst > 1e-4 || seen == 0 {
		t.Errorf("%d windows: logits differ from torch's by up to %g", seen, worst)
	}
	t.Logf("%d windows, max |logit - torch's| %.2g, max |logit| %.3g", seen, worst, big)
}

// TestReferenceGoldensCurrent (make test-reference): the committed
// goldens make test compares with are those a fresh pipeline run gives
// (texts and offsets exactly, scores within 1e-6): make reference-goldens
// rewrites them when transformers or the checkpoints change.
func TestReferenceGoldensCurrent(t *testing.T) {
	fresh := os.Getenv("QA_SHARD_REFERENCE_ANSWERS")
	if fresh == "" {
		t.Skip("make test-reference runs it (it needs transformers and torch)")
	}
	for _, c := range testmodel.Checkpoints {
		read := func(path string) []string {
			b, err := os.ReadFile(path)
			must(t, err)
			return strings.Split(strings.TrimSpace(string(b)), "\n")[1:]
		}
		committed, now := read(filepath.Join("testdata", "reference", c.Name+".jsonl")), read(filepath.Join(fresh, c.Name+".jsonl"))
		if len(committed) != len(now) {
			t.Errorf("%s: %d committed records, %d now: run make reference-goldens", c.Name, len(committed), len(now))
			continue
		}
		for i := range now {
			var a, b struct {
				Answers []struct {
					Answer     string
					Score      float64
					Start, End int
				}
			}
			must(t, json.Unmarshal([]byte(committed[i]), &a))
			must(t, json.Unmarshal([]byte(now[i]), &b))
			same := len(a.Answers) == len(b.Answers)
			for k := 0; same && k < len(a.Answers); k++ {
				x, y := a.Answers[k], b.Answers[k]
				same = x.Answer == y.Answer && x.Start == y.Start && x.End == y.End && math.Abs(x.Score-y.Score) <= 1e-6
			}
			if !same {
				t.Errorf("%s record %d: committed %s, now %s: run make reference-goldens", c.Name, i, committed[i], now[i])
			}
		}
	}
}
