package input

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/format"
	"qa-shard/internal/readstate"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// squadText is a SQuAD v2.0 dataset of two articles and four paragraphs:
// a question asked twice under two ids, one with spaces around it, the
// same question twice under one id, a numeric id, an impossible question
// with plausible answers, and a paragraph with an empty context.
const squadText = `{"version": "v2.0", "data": [
 {"title": "Normans", "paragraphs": [
  {"qas": [
    {"question": "In what country is Normandy located?", "id": "56ddde6b9a695914005b9628", "answers": [{"text": "France", "answer_start": 159}], "is_impossible": false},
    {"question": "  When were the Normans in Normandy? ", "id": "56ddde6b9a695914005b9629", "answers": [{"text": "10th and 11th centuries", "answer_start": 94}], "is_impossible": false},
    {"question": "In what country is Normandy located?", "id": "56ddde6b9a695914005b962a", "answers": [{"text": "France", "answer_start": 159}], "is_impossible": false},
    {"question": "In what country is Normandy located?", "id": "56ddde6b9a695914005b962a", "answers": [], "is_impossible": false}],
   "context": "The Normans (Norman: Nourmands; French: Normands; Latin: Normanni) were the people who in the 10th and 11th centuries gave their name to Normandy, a region in France."},
  {"qas": [{"plausible_answers": [{"text": "Rollo", "answer_start": 8}], "question": "Who gave their name to Normandy in the 1000's?", "id": "5ad39d53604f3c001a3fe8d1", "answers": [], "is_impossible": true}],
   "context": "Under Rollo, the Vikings settled in the north of France."}]},
 {"title": "Physics", "paragraphs": [
  {"qas": [{"question": "What is force?", "id": 7, "answers": [{"text": "any interaction", "answer_start": 9}]}],
   "context": "A force is any interaction that changes the motion of an object."},
  {"qas": [{"question": "Empty?", "id": "e1", "answers": []}], "context": "   "}]}]}
`

func writeSQuAD(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	must(t, os.WriteFile(path, []byte(squadText), 0o644))
	return path
}

// TestSQuADInput: a .json file holding a SQuAD dataset is read as one:
// each paragraph a document at its row, with the default id, the global
// question first, then its own questions trimmed with their ids (the same
// text under two ids asked twice, a repeated id once), the article's
// title kept; an empty context is an error record; the documents' bytes
// add up to the file. A .json file of JSON lines is still JSON lines.
func TestSQuADInput(t *testing.T) {
	dir := t.TempDir()
	path := writeSQuAD(t, dir, "dev-v2.0.json")
	jsonl := filepath.Join(dir, "lines.json")
	must(t, os.WriteFile(jsonl, []byte(lines(0, 3)), 0o644))
	files := mustFind(t, []string{path, jsonl})
	opt := record.Options{Questions: []string{"What is this about?"}, Fields: record.Fields{Keep: []string{"title", "url"}}}
	var err error
	opt.Schema, err = Schema(files, opt, "auto")
	must(t, err)
	if opt.Schema.ID != record.String {
		t.Fatalf("schema %+v: SQuAD paragraphs have string (default) ids", opt.Schema)
	}
	plan, err := Split(files, shard.Rank{World: 1})
	must(t, err)
	if plan.Files[0].Format != format.SQuAD || plan.Files[1].Format != format.JSONL {
		t.Fatalf("formats %s and %s, want SQuAD JSON and JSONL", plan.Files[0].Format, plan.Files[1].Format)
	}
	s, err := plan.Open(opt, nil, 0)
	must(t, err)
	defer s.Close()
	docs := readAll(t, s)
	if len(docs) != 7 {
		t.Fatalf("%d documents, want 4 paragraphs and 3 lines", len(docs))
	}
	type view struct {
		pos       record.Position
		id, title string
		questions []string
		ids       []string
	}
	want := []view{
		{record.Position{File: "dev-v2.0.json", At: 0, Row: true}, `"dev-v2.0.json:0"`, `"Normans"`,
			[]string{"What is this about?", "In what country is Normandy located?", "When were the Normans in Normandy?", "In what country is Normandy located?"},
			[]string{"", "56ddde6b9a695914005b9628", "56ddde6b9a695914005b9629", "56ddde6b9a695914005b962a"}},
		{record.Position{File: "dev-v2.0.json", At: 1, Row: true}, `"dev-v2.0.json:1"`, `"Normans"`,
			[]string{"What is this about?", "Who gave their name to Normandy in the 1000's?"}, []string{"", "5ad39d53604f3c001a3fe8d1"}},
		{record.Position{File: "dev-v2.0.json", At: 2, Row: true}, `"dev-v2.0.json:2"`, `"Physics"`,
			[]string{"What is this about?", "What is force?"}, []string{"", "7"}},
	}
	var bytes int64
	for i, d := range docs {
		bytes += d.Bytes
		if i >= len(want) {
			continue
		}
		w := want[i]
		got := view{d.Pos, string(d.ID), string(d.Keep[0]), d.Questions, d.QuestionIDs}
		if fmt.Sprint(got) != fmt.Sprint(w) || d.Err != nil || string(d.Keep[1]) != "null" {
			t.Errorf("paragraph %d:\n got %+v (err %v, keep %s)\nwant %+v", i, got, d.Err, d.Keep, w)
		}
	}
	if !strings.HasPrefix(docs[0].Context, "The Normans (Norman:") {
		t.Errorf("paragraph 0 context %q", docs[0].Context)
	}
	if !errors.Is(docs[3].Err, record.ErrEmptyContext) || string(docs[3].ID) != `"dev-v2.0.json:3"` {
		t.Errorf("paragraph 3 (empty context): id %s, err %v", docs[3].ID, docs[3].Err)
	}
	if d := docs[4]; string(d.ID) != `"d0"` || d.Pos != (record.Position{File: "lines.json", At: 0}) || d.QuestionIDs != nil {
		t.Errorf("the JSON lines file: %+v", d)
	}
	if total := plan.Files[0].Size + plan.Files[1].Size; bytes != total {
		t.Errorf("documents stand for %d bytes, the files hold %d", bytes, total)
	}
	s.CountDocs(context.Background())
	if n, est := s.Docs(); n != 7 || est || plan.Rows() != 0 {
		t.Errorf("counted %d documents (estimate %v), want 7 exactly; planned rows %d, want 0 (a JSON lines file is not counted in advance)", n, est, plan.Rows())
	}
	if p, err := Split(files[:1], shard.Rank{World: 1}); err != nil || p.Rows() != 4 {
		t.Errorf("the dataset alone plans %d rows (%v), want its 4 paragraphs", p.Rows(), err)
	}
}

// TestSQuADResumeAndRanks: a SQuAD dataset among JSON lines files
// resumes after any number of documents (through the journal's JSON) in
// every rank, and ranks do not split it: exactly one reads it whole.
func TestSQuADResumeAndRanks(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	must(t, os.WriteFile(a, []byte(lines(0, 40)), 0o644))
	sq := writeSQuAD(t, dir, "squad.json")
	c := filepath.Join(dir, "c.jsonl")
	must(t, os.WriteFile(c, []byte(lines(40, 60)), 0o644))
	files := mustFind(t, []string{a, sq, c})
	for _, w := range []int{1, 2, 5} {
		readers := 0
		for r := range w {
			s := openRank(t, files, r, w, nil, 0)
			states := map[int64][]byte{0: marshal(t, s.At(0))}
			var docs []string
			paragraphs := 0
			for i := int64(0); ; i++ {
				d, err := s.Next()
				if err != nil {
					break
				}
				if d.Pos.File == "squad.json" {
					paragraphs++
				}
				docs = append(docs, key(d)+fmt.Sprint(d.QuestionIDs))
				states[i+1] = marshal(t, s.At(i+1))
			}
			if paragraphs > 0 {
				readers++
				if paragraphs != 4 {
					t.Errorf("w=%d rank %d read %d of the 4 paragraphs", w, r, paragraphs)
				}
			}
			for k := int64(0); k <= int64(len(docs)); k++ {
				var st readstate.State
				must(t, json.Unmarshal(states[k], &st))
				var got []string
				for _, d := range readAll(t, openRank(t, files, r, w, &st, k)) {
					got = append(got, key(d)+fmt.Sprint(d.QuestionIDs))
				}
				if strings.Join(got, "\n") != strings.Join(docs[k:], "\n") {
					t.Fatalf("w=%d rank %d resumed after %d of %d documents: %d read, want %d", w, r, k, len(docs), len(got), len(docs)-int(k))
				}
			}
		}
		if readers != 1 {
			t.Errorf("w=%d: %d ranks read the dataset, want 1", w, readers)
		}
	}
}

// TestSQuADChanged: a dataset changed in place (its time put back) is
// refused by a resume inside it; one that is not a dataset after its
// start is refused before anything is read, naming it.
func TestSQuADChanged(t *testing.T) {
	dir := t.TempDir()
	path := writeSQuAD(t, dir, "squad.json")
	files := mustFind(t, []string{path})
	s := openRank(t, files, 0, 1, nil, 0)
	for range 2 {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	st := s.At(2)
	b, err := os.ReadFile(path)
	must(t, err)
	info, err := os.Stat(path)
	must(t, err)
	must(t, os.WriteFile(path, []byte(strings.Replace(string(b), "object.", "objekt.", 1)), 0o644))
	must(t, os.Chtimes(path, info.ModTime(), info.ModTime()))
	plan, err := Split(mustFind(t, []string{path}), shard.Rank{World: 1})
	must(t, err)
	if _, err := plan.Open(options(), &st, 2); !errors.Is(err, ErrChanged) || !strings.Contains(err.Error(), "squad.json") {
		t.Errorf("resume in a changed dataset: %v, want ErrChanged naming it", err)
	}

	must(t, os.WriteFile(path, []byte(`{"version": "v2.0", "data": [{"title": "t", "paragraphs": [{"context": 3}]}]}`), 0o644))
	if _, err := Split(mustFind(t, []string{path}), shard.Rank{World: 1}); !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), "squad.json") {
		t.Errorf("a broken dataset: %v, want ErrInput naming it", err)
	}
}
