package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordSettingsEqualFlags: with --settings-field, records carrying
// their own settings in one run are answered as a run given the same
// settings as flags answers them (texts and offsets exactly, scores and
// logits within sameRecord's tolerance: the runs batch differently), on a real model under ONNX
// Runtime; the same settings field with Parquet output is refused before
// any work.
func TestRecordSettingsEqualFlags(t *testing.T) {
	in := writeCorpus(t, 14, 5)
	variants := []struct {
		own   string
		flags []string
	}{
		{`{"top_k": 3}`, []string{"--top-k", "3"}},
		{`{"max_seq_len": 48, "doc_stride": 16}`, []string{"--max-seq-len", "48", "--doc-stride", "16"}},
		{`{"handle_impossible_answer": true, "max_answer_len": 4, "align_to_words": false}`,
			[]string{"--handle-impossible-answer", "--max-answer-len", "4", "--align-to-words=false"}},
		{``, nil},
	}
	// One input: record i carries variant i%4's settings.
	docs := readRecords(t, in)
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	var b strings.Builder
	for i, d := range docs {
		if own := variants[i%len(variants)].own; own != "" {
			d["settings"] = json.RawMessage(own)
		}
		line, _ := json.Marshal(d)
		b.Write(line)
		b.WriteByte('\n')
	}
	if err := os.WriteFile(mixed, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	m := model(t, "tiny")
	out := filepath.Join(t.TempDir(), "mixed-answers.jsonl")
	if code, stderr := runCLI(t, "--model", m, "--devices", "cpu", "--input", mixed, "--question", "Who?", "--output", out,
		"--settings-field", "settings", "--max-seq-len", "64", "--doc-stride", "24"); code != exitOK {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	got := nonBlankLines(t, out)
	for v, variant := range variants {
		alone := filepath.Join(t.TempDir(), "alone.jsonl")
		args := append([]string{"--model", m, "--devices", "cpu", "--input", in, "--question", "Who?", "--output", alone,
			"--max-seq-len", "64", "--doc-stride", "24"}, variant.flags...)
		if code, stderr := runCLI(t, args...); code != exitOK {
			t.Fatalf("%v: exit %d:\n%s", variant.flags, code, stderr)
		}
		want := nonBlankLines(t, alone)
		if len(want) != len(got) {
			t.Fatalf("%d records with flags, %d with record settings", len(want), len(got))
		}
		checked := 0
		for i := range want {
			var w, g map[string]any
			_ = json.Unmarshal([]byte(want[i]), &w)
			_ = json.Unmarshal([]byte(got[i]), &g)
			if docIndex(t, w)%len(variants) != v {
				continue
			}
			checked++
			if !sameRecord(g, w) { // batches differ between the runs: scores within golden_test's tolerance
				t.Errorf("settings %s: record %d\nwith flags:           %s\nwith record settings: %s", variant.own, i, want[i], got[i])
			}
		}
		if checked == 0 {
			t.Errorf("settings %s: no record checked", variant.own)
		}
	}

	code, stderr := runCLI(t, "--model", m, "--devices", "sim:1", "--input", mixed, "--question", "Who?",
		"--output", filepath.Join(t.TempDir(), "answers.parquet"), "--settings-field", "settings")
	if code != exitUsage || !strings.Contains(messages(t, stderr), "write JSONL") {
		t.Errorf("--settings-field with Parquet output: exit %d, want %d and a refusal saying to write JSONL:\n%s", code, exitUsage, stderr)
	}
}

// docIndex is the number in a corpus record's id (d007 is 7).
func docIndex(t *testing.T, rec map[string]any) int {
	t.Helper()
	var n int
	id, _ := rec["id"].(string)
	for _, r := range strings.TrimPrefix(id, "d") {
		n = n*10 + int(r-'0')
	}
	return n
}
