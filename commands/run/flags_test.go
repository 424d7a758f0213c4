package run

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/cli"
	"qa-shard/internal/record"
)

// TestConfigFile: settings come from YAML and flags win over them.
func TestConfigFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(cfg, []byte("devices: cpu:2\ntop-k: 3\nquestion:\n  - Who founded it?\n  - Where is it?\nmax-seq-len: 64\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parse([]string{"--config", cfg, "--top-k", "2"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.Devices != "cpu:2" || o.Settings.TopK != 2 || o.Settings.MaxSeqLen != 64 || len(o.Questions) != 2 {
		t.Errorf("merged options: devices %q top-k %d max-seq-len %d questions %q", o.Devices, o.Settings.TopK, o.Settings.MaxSeqLen, o.Questions)
	}
	if err := os.WriteFile(cfg, []byte("top_k: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := parse([]string{"--config", cfg}, ""); err == nil || !strings.Contains(err.Error(), "unknown setting") {
		t.Errorf("unknown key accepted: %v", err)
	}
}

// TestShippedConfigsParse: every example in configs/ names only real flags
// with valid values.
func TestShippedConfigsParse(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, f := range files {
		if _, err := parse([]string{"--config", f}, ""); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestUnknownFlagSuggestion: a typo gets the nearest flag; a name far
// from every flag gets no guess.
func TestUnknownFlagSuggestion(t *testing.T) {
	for args, want := range map[string]string{
		"--ouput a.jsonl":    "did you mean --output?",
		"--qestion=x":        "did you mean --question?",
		"--max-seq-lne 128":  "did you mean --max-seq-len?",
		"--resum":            "did you mean --resume?",
		"--frobnicate 3":     "",
		"--model m --xyz 12": "",
	} {
		_, err := parse(strings.Fields(args), "help")
		if err == nil || !errors.Is(err, cli.ErrUsage) {
			t.Fatalf("%s: %v, want a usage error", args, err)
		}
		if got := err.Error(); (want == "") == strings.Contains(got, "did you mean") || !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", args, got, want)
		}
	}
}

// TestAnswerSettingsAreFlags: every answer setting is keyed by its flag,
// so a refused resume can name it.
func TestAnswerSettingsAreFlags(t *testing.T) {
	o, err := parse(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	fs := flagSet(o)
	for k := range o.AnswerSettings(record.Schema{}).Keyed() {
		if fs.Lookup(k) == nil && k != "keep-field-types" && k != "record-layout" {
			t.Errorf("answer setting %q is not a flag", k)
		}
	}
	if got := o.AnswerSettings(record.Schema{}).Keyed()["record-layout"]; got != record.Layout {
		t.Errorf("record-layout = %v, want record.Layout %d: outputs of two layouts must not be mixed", got, record.Layout)
	}
}
