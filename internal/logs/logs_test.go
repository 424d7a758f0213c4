package logs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestFormatIn: the format is found in the arguments as pflag would read
// them, or in the --config file; anything else is auto (JSON when standard
// error is not a terminal, as under go test).
func TestFormatIn(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(cfg, []byte("model: m\nlog-format: console\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "json"},
		{[]string{"--log-format", "console"}, "console"},
		{[]string{"--log-format=console", "--bogus"}, "console"},
		{[]string{"--log-format", "console", "--log-format", "json"}, "json"},
		{[]string{"--config", cfg}, "console"},
		{[]string{"--config=" + cfg, "--log-format", "json"}, "json"},
		{[]string{"--log-format", "xml"}, "json"},
		{[]string{"--", "--log-format", "console"}, "json"},
		{[]string{"--config", filepath.Join(dir, "missing.yaml")}, "json"},
	} {
		if got := formatIn(tc.args); got != tc.want {
			t.Errorf("FormatIn(%q) = %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestNewRefusesUnknownSettings(t *testing.T) {
	for _, s := range [][2]string{{"xml", "info"}, {"json", "loud"}} {
		if _, err := New(s[0], s[1]); !errors.Is(err, ErrSettings) {
			t.Errorf("New(%q, %q): %v, want ErrSettings", s[0], s[1], err)
		}
	}
	if _, err := New("console", "debug"); err != nil {
		t.Error(err)
	}
}
