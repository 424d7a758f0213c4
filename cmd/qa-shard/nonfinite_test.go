//go:build testhooks

package main

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"qa-shard/internal/testing/testfixtures"
	"qa-shard/internal/testing/testmodel"
	"qa-shard/tokenizer"
)

// nonFiniteModel generates the tiny model with opts (one whose logits are
// NaN on some inputs or all) into a folder of t.
func nonFiniteModel(t *testing.T, opts ...testmodel.Option) string {
	t.Helper()
	model(t, "tiny") // the setup's error, if any
	dir := filepath.Join(t.TempDir(), "model")
	if err := testfixtures.GenerateTiny(dir, opts...); err != nil {
		t.Fatal(err)
	}
	return dir
}

// tokenID is the id of a word that the tiny model's tokenizer keeps whole.
func tokenID(t *testing.T, word string) int {
	t.Helper()
	tok, err := tokenizer.Load(filepath.Join(model(t, "tiny"), "tokenizer.json"))
	if err != nil {
		t.Fatal(err)
	}
	ids := tok.Encode(word).IDs
	if len(ids) != 1 {
		t.Fatalf("%q is %d tokens, want 1", word, len(ids))
	}
	return int(ids[0])
}

// checkFinite fails t when a record's score or a logit is not finite.
func checkFinite(t *testing.T, recs []string, logitsDir string) {
	t.Helper()
	for i, r := range recs {
		// answerRecords went through JSON, which holds no NaN: a score
		// that was one would have failed there, or be missing here.
		var m map[string]any
		must(t, json.Unmarshal([]byte(r), &m))
		if _, ok := m["score"].(float64); !ok && m["error"] == nil {
			t.Fatalf("record %d has no finite score: %s", i, r)
		}
	}
	rows, err := readLogitsDir(logitsDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		for _, v := range append(slices.Clone(row.StartLogits), row.EndLogits...) {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("logits of %s window %d are not finite", row.Pos, row.Window)
			}
		}
	}
}

// TestNonFiniteModelRefused: a model whose logits are NaN everywhere (the
// weights overflow float32) is refused with exit 2 naming the model, for
// JSONL and Parquet answers alike, and no answer is written from it.
func TestNonFiniteModelRefused(t *testing.T) {
	dir := nonFiniteModel(t, testmodel.WithInitStd(1e38))
	in := writeCorpus(t, 30, 3)
	for _, name := range []string{"answers.jsonl", "answers.parquet"} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), name)
			code, stderr := runCLI(t, "--model", dir, "--input", in, "--question", "Who founded the company?", "--output", out,
				"--logits", out+".logits", "--devices", "cpu:2", "--threads", "1", "--max-batch-tokens", "1024")
			msg := messages(t, stderr)
			if code != exitUsage || !strings.Contains(msg, "the model "+dir+" is refused") || !strings.Contains(msg, "non-finite logits") {
				t.Fatalf("exit %d, want %d naming the model and its non-finite logits:\n%s", code, exitUsage, msg)
			}
			if done := journalDone(out); done > 0 {
				t.Errorf("the journal vouches for %d documents answered by a NaN model", done)
			}
		})
	}
}

// TestNonFiniteWindowsErrorRecords: a model that overflows on one token
// only (its embedding is +Inf) answers every document without it; each
// document with it gets an error record naming the window, counted
// against --max-errors (exit 3 past it, 0 within it), for JSONL and
// Parquet; no NaN reaches the answers or the logits; a run stopped after
// the first such document resumes to the same output.
func TestNonFiniteWindowsErrorRecords(t *testing.T) {
	dir := nonFiniteModel(t, testmodel.WithInfiniteToken(tokenID(t, "zebra")))
	var lines []string
	for i := range 60 {
		text := fmt.Sprintf("The company number %d was founded in Lisbon by engineers who built bridges.", i)
		if i == 12 || i == 40 {
			text += " A zebra stood by the bridge."
		}
		lines = append(lines, fmt.Sprintf(`{"id":"d%02d","context":%q}`, i, text))
	}
	in := writeLines(t, lines...)
	for _, name := range []string{"answers.jsonl", "answers.parquet"} {
		t.Run(name, func(t *testing.T) {
			tmp := t.TempDir()
			args := func(out string, extra ...string) []string {
				return append([]string{"--model", dir, "--input", in, "--question", "Who founded the company?", "--output", out,
					"--logits", out + ".logits", "--devices", "cpu:2", "--threads", "1", "--max-batch-tokens", "1024", "--checkpoint-interval", "50ms"}, extra...)
			}
			whole := filepath.Join(tmp, "whole-"+name)
			if code, stderr := runCLI(t, args(whole, "--max-errors", "2")...); code != exitOK {
				t.Fatalf("exit %d within --max-errors 2:\n%s", code, stderr)
			}
			recs := answerRecords(t, whole)
			if len(recs) != 60 {
				t.Fatalf("%d records, want 60", len(recs))
			}
			for i, r := range recs {
				bad := strings.Contains(r, "the model gave non-finite logits for window 1")
				if bad != (i == 12 || i == 40) {
					t.Errorf("record %d: %s", i, r)
				}
			}
			checkFinite(t, recs, whole+".logits")
			checkLogitsOnce(t, whole+".logits", 58)

			strict := filepath.Join(tmp, "strict-"+name)
			if code, stderr := runCLI(t, args(strict)...); code != exitRecords {
				t.Fatalf("exit %d with two error records and --max-errors 0, want %d:\n%s", code, exitRecords, stderr)
			}

			stopped := filepath.Join(tmp, "stopped-"+name)
			c := startHooked(t, []string{envSignalAt + "=30:INT"}, args(stopped, "--max-errors", "2")...)
			if code := c.exit(); code != exitInterrupted {
				t.Fatalf("exit %d after SIGINT, want %d:\n%s", code, exitInterrupted, c.stderr)
			}
			if code, stderr := runCLI(t, args(stopped, "--max-errors", "2", "--resume")...); code != exitOK {
				t.Fatalf("resume exit %d:\n%s", code, stderr)
			}
			if got := answerRecords(t, stopped); !slices.Equal(got, recs) {
				t.Fatal("the resumed output differs from an uninterrupted run")
			}
			checkFinite(t, answerRecords(t, stopped), stopped+".logits")
		})
	}
}
