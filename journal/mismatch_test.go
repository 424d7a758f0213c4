package journal_test

import (
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/fingerprint"
	"qa-shard/journal"
)

// TestSettingsChangesNamed: a mismatch of settings names each changed
// one with its old and new value.
func TestSettingsChangesNamed(t *testing.T) {
	old := fingerprint.Fingerprint{Settings: "a", SettingsText: `{"doc-stride":128,"top-k":1,"gone":true}`}
	now := fingerprint.Fingerprint{Settings: "b", SettingsText: `{"doc-stride":128,"top-k":3,"max-line-bytes":1024}`}
	out := filepath.Join(t.TempDir(), "answers.jsonl")
	if _, err := journal.Create(out, old); err != nil {
		t.Fatal(err)
	}
	_, _, openErr := journal.OpenChecked(out, now, nil)
	if openErr == nil {
		t.Fatal("resume with other settings accepted")
	}
	err := openErr.Error()
	for _, want := range []string{"--top-k was 1, now 3", "--gone was true, and is no longer a setting", "--max-line-bytes is new (now 1024)"} {
		if !strings.Contains(err, want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
	if strings.Contains(err, "doc-stride") {
		t.Errorf("%q names a setting that did not change", err)
	}
}
