package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var corpusWords = strings.Fields(`the company was founded in by engineers who built
bridges railways and harbors across northern europe its headquarters moved to
lisbon after war museum archive garden laboratory café naïve Ångström İstanbul
東京 😀 straße ﬁnance https://example.org/a?b=1 3.14159 1,000,000 ΟΔΟΣ
unbelievably antidisestablishmentarianism co-operation O'Neill e-mail`)

// writeCorpus writes n documents of mixed lengths, a few long enough for
// many windows, and returns the file's path.
func writeCorpus(t *testing.T, n int, seed uint64) string {
	t.Helper()
	r := rand.New(rand.NewPCG(seed, 7))
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for i := range n {
		words := 3 + r.IntN(120)
		if i%7 == 3 {
			words = 600 + r.IntN(900)
		}
		var b strings.Builder
		for w := range words {
			if w > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(corpusWords[r.IntN(len(corpusWords))])
			if r.IntN(12) == 0 {
				b.WriteByte('.')
			}
		}
		doc := map[string]any{"id": fmt.Sprintf("d%03d", i), "context": b.String()}
		if i%5 == 0 {
			doc["question"] = "Where did the headquarters move?"
		}
		if err := enc.Encode(doc); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func writeLines(t *testing.T, lines ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "docs.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readRecords parses an answers file into generic records.
func readRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("output line %d is not JSON: %v: %s", i+1, err, line)
		}
		out = append(out, m)
	}
	return out
}
