package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// logLine is one line of standard error in JSON mode.
type logLine map[string]any

// jsonLines parses stderr line by line: every line must be one JSON object
// with a level, a time and a message.
func jsonLines(t *testing.T, stderr string) []logLine {
	t.Helper()
	var out []logLine
	for i, line := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		var m logLine
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("stderr line %d is not one JSON object (%v):\n%s\n--- all of stderr:\n%s", i+1, err, line, stderr)
		}
		for _, k := range []string{"level", "ts", "msg"} {
			if _, ok := m[k]; !ok {
				t.Errorf("stderr line %d has no %q: %s", i+1, k, line)
			}
		}
		out = append(out, m)
	}
	return out
}

// find returns the first line whose message contains msg, or nil.
func find(lines []logLine, msg string) logLine {
	for _, l := range lines {
		if s, _ := l["msg"].(string); strings.Contains(s, msg) {
			return l
		}
	}
	return nil
}

// lastLine is the last line of s.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}
