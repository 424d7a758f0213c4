package fingerprint

import (
	"strings"
	"testing"
)

// TestInputDetails: a changed input names each file added, removed or
// resized (sizes are listed for ranks); a journal without the list keeps
// the hashes.
func TestInputDetails(t *testing.T) {
	have := Fingerprint{Input: "h1", InputText: `{"a.jsonl":10,"b.jsonl":20}`}
	want := Fingerprint{Input: "h2", InputText: `{"a.jsonl":12,"c.jsonl":5}`}
	cs := Compare(have, want)
	if len(cs) != 1 || strings.Join(cs[0].Details, "; ") != "a.jsonl had 10 bytes, now 12; b.jsonl is gone (it had 20 bytes); c.jsonl was added (5 bytes)" {
		t.Errorf("details %+v", cs)
	}
	names := Compare(Fingerprint{Input: "h1", InputText: `{"a.jsonl":true}`}, Fingerprint{Input: "h2", InputText: `{"a.jsonl":true,"z.jsonl":true}`})
	if len(names) != 1 || strings.Join(names[0].Details, "; ") != "z.jsonl was added" {
		t.Errorf("names only: %+v", names)
	}
	if old := Compare(Fingerprint{Input: "h1"}, want); len(old) != 1 || old[0].Details != nil {
		t.Errorf("a journal without the list: %+v", old)
	}
}
