package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigFile: settings come from YAML and flags win over them.
func TestConfigFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "run.yaml")
	os.WriteFile(cfg, []byte("devices: cpu:2\ntop-k: 3\nquestion:\n  - Who founded it?\n  - Where is it?\nmax-seq-len: 64\n"), 0o644)
	o, err := ParseRun([]string{"--config", cfg, "--top-k", "2"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if o.Devices != "cpu:2" || o.Settings.TopK != 2 || o.Settings.MaxSeqLen != 64 || len(o.Questions) != 2 {
		t.Errorf("merged options: devices %q top-k %d max-seq-len %d questions %q", o.Devices, o.Settings.TopK, o.Settings.MaxSeqLen, o.Questions)
	}
	os.WriteFile(cfg, []byte("top_k: 3\n"), 0o644)
	if _, err := ParseRun([]string{"--config", cfg}, ""); err == nil || !strings.Contains(err.Error(), "unknown setting") {
		t.Errorf("unknown key accepted: %v", err)
	}
}

// TestShippedConfigsParse: every example in configs/ names only real flags
// with valid values.
func TestShippedConfigsParse(t *testing.T) {
	files, err := filepath.Glob("../configs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, f := range files {
		if _, err := ParseRun([]string{"--config", f}, ""); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
