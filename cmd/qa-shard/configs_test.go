package main

import (
	"path/filepath"
	"testing"
)

// TestShippedConfigsParse: every example in configs/ names only real flags
// with valid values.
func TestShippedConfigsParse(t *testing.T) {
	files, err := filepath.Glob("../../configs/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no configs found: %v", err)
	}
	for _, f := range files {
		if _, err := parseRun([]string{"--config", f}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}
