package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestMaxWindowsPerDoc: a document over --max-windows-per-doc is an error
// record (exit 3) that says how many windows it needs and which flag
// raises the limit; every other record is the one a run without the
// limit writes, and with --max-windows-per-doc 0 the document is answered.
func TestMaxWindowsPerDoc(t *testing.T) {
	lines := []string{`{"id": "a", "context": "Ada founded the company in London."}`}
	lines = append(lines, fmt.Sprintf(`{"id": "long", "context": %q}`, strings.Repeat("Ada founded the company in London. ", 300)))
	lines = append(lines, `{"id": "c", "context": "Grace moved the headquarters to Osaka."}`)
	in := writeLines(t, lines...)
	code, want, stderr := simRun(t, in, "sim:2", "--max-windows-per-doc", "0")
	if code != exitOK {
		t.Fatalf("without a limit: exit %d:\n%s", code, stderr)
	}
	var long struct{ Windows int }
	wantLines := strings.Split(string(want), "\n")
	if err := json.Unmarshal([]byte(wantLines[1]), &long); err != nil || long.Windows < 4 {
		t.Fatalf("the long document should need several windows: %s", wantLines[1])
	}
	code, got, stderr := simRun(t, in, "sim:2", "--max-windows-per-doc", "3")
	if code != exitRecords {
		t.Fatalf("exit %d, want %d:\n%s", code, exitRecords, stderr)
	}
	gotLines := strings.Split(string(got), "\n")
	if len(gotLines) != len(wantLines) || gotLines[0] != wantLines[0] || gotLines[2] != wantLines[2] {
		t.Fatalf("the other records changed:\n%s\nvs\n%s", got, want)
	}
	var rec struct{ ID, Error string }
	must(t, json.Unmarshal([]byte(gotLines[1]), &rec))
	for _, w := range []string{fmt.Sprintf("needs %d windows", long.Windows), "--max-windows-per-doc 3", "raise --max-windows-per-doc"} {
		if rec.ID != "long" || !strings.Contains(rec.Error, w) {
			t.Errorf("record of the long document lacks %q: %s", w, gotLines[1])
		}
	}
}
