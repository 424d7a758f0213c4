package input

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

type pqAsking struct {
	ID       string `parquet:"id"`
	Context  string `parquet:"context"`
	Question string `parquet:"question"`
}

// TestPrepareRefusesNothingToAsk: without global questions, Prepare
// refuses an input whose first record asks nothing of its own (JSONL: no
// non-blank question; Parquet: no question column), for every rank alike,
// and accepts one whose first record asks, or that has no record at all.
func TestPrepareRefusesNothingToAsk(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	silent := write("silent.jsonl", "\n"+lines(0, 30))
	asking := write("asking.jsonl", `{"id": "a", "context": "c", "questions": ["", "Who?"]}`+"\n"+lines(0, 30))
	blank := write("blank.jsonl", `{"id": "a", "context": "c", "question": " ", "questions": []}`+"\n")
	notJSON := write("broken.jsonl", "not json\n"+lines(0, 3))
	empty := write("empty.jsonl", "")
	pqSilent, pqAsks := filepath.Join(dir, "silent.parquet"), filepath.Join(dir, "asks.parquet")
	must(t, corpus.WriteParquet(pqSilent, pqDocs(0, 40), 10))
	must(t, corpus.WriteParquet(pqAsks, []pqAsking{{"a", "c", "Who?"}}, 10))
	custom := write("custom.jsonl", `{"id": "a", "context": "c", "ask": ["Who?"]}`+"\n")

	for _, tc := range []struct {
		name    string
		inputs  []string
		fields  record.Fields
		refused bool
	}{
		{"first record asks nothing", []string{silent, asking}, record.Fields{}, true},
		{"first record asks", []string{asking, silent}, record.Fields{}, false},
		{"blank questions are none", []string{blank}, record.Fields{}, true},
		{"a broken first record says nothing", []string{notJSON}, record.Fields{}, false},
		{"no record at all", []string{empty}, record.Fields{}, false},
		{"empty file, then a silent one", []string{empty, silent}, record.Fields{}, true},
		{"parquet without a question column", []string{pqSilent}, record.Fields{}, true},
		{"parquet with one", []string{pqAsks}, record.Fields{}, false},
		{"a custom question field", []string{custom}, record.Fields{Question: "ask"}, false},
		{"a custom field the records lack", []string{asking}, record.Fields{Question: "ask"}, true},
	} {
		for _, r := range []shard.Rank{{World: 1}, {Rank: 2, World: 3}} {
			_, _, err := Prepare(tc.inputs, r, record.Options{Fields: tc.fields}, "auto")
			if refused := errors.Is(err, record.ErrNoQuestion); refused != tc.refused || (err != nil && !refused) {
				t.Errorf("%s, rank %d of %d: %v; want refused %v", tc.name, r.Rank, r.World, err, tc.refused)
			}
			if _, _, err := Prepare(tc.inputs, r, record.Options{Fields: tc.fields, Questions: []string{"Who?"}}, "auto"); err != nil {
				t.Errorf("%s with a global question: %v", tc.name, err)
			}
		}
	}
}
