package tokenize

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
)

// tiny is a WordPiece tokenizer.json of a few words, framed as BERT.
const tiny = `{
  "added_tokens": [
    {"id": 0, "content": "[PAD]", "special": true},
    {"id": 1, "content": "[UNK]", "special": true},
    {"id": 2, "content": "[CLS]", "special": true},
    {"id": 3, "content": "[SEP]", "special": true}
  ],
  "normalizer": {"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true, "strip_accents": null, "lowercase": true},
  "pre_tokenizer": {"type": "BertPreTokenizer"},
  "post_processor": {"type": "TemplateProcessing",
    "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
    "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
             {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
    "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [2], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [3], "tokens": ["[SEP]"]}}},
  "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100,
    "vocab": {"[PAD]": 0, "[UNK]": 1, "[CLS]": 2, "[SEP]": 3, "who": 4, "founded": 5, "it": 6, "?": 7, "maria": 8, "un": 9, "##icode": 10, ".": 11}}
}`

func load(t *testing.T) *tokenizer.Tokenizer {
	t.Helper()
	tok, err := tokenizer.FromJSON([]byte(tiny), t.TempDir(), "tokenizer.json")
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// TestRows: a text's tokens carry offsets that cut their text out of it
// (code points, after an accent); with a question, the first window marks
// the specials, the question and the context, with their type ids.
func TestRows(t *testing.T) {
	tok := load(t)
	text := "Maria founded Ünicode."
	rows, err := tokenRows(tok, 0, text, "")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		if r.Source != string([]rune(text)[r.Start:r.End]) || r.Type != nil {
			t.Errorf("row %+v: its source is not text[%d:%d], or it has a type id", r, r.Start, r.End)
		}
		got = append(got, r.Token)
	}
	if strings.Join(got, " ") != "maria founded un ##icode ." {
		t.Errorf("tokens %q", got)
	}

	rows, err = tokenRows(tok, 0, text, "Who founded it?")
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, r := range rows {
		kind := r.Source
		if kind != "special" && kind != "question" {
			kind = "context"
		}
		if r.Type == nil || (kind == "context") != (*r.Type == 1) && r.Token != "[SEP]" {
			t.Errorf("row %+v: type id does not fit a %s token", r, kind)
		}
		kinds = append(kinds, kind)
	}
	if want := "special question question question question special context context context context context special"; strings.Join(kinds, " ") != want {
		t.Errorf("window rows %q, want %q", kinds, want)
	}
}

// TestWrite: the table names the template and each token's span; the JSON
// is the facts, then one object per row.
func TestWrite(t *testing.T) {
	tok := load(t)
	facts := describe(tok, modeldir.Origin{})
	if facts.Template != "[CLS] question [SEP] context [SEP]" || facts.CLS != "[CLS]" || facts.Pad != "[PAD]" || facts.VocabSize != 12 {
		t.Errorf("facts %+v", facts)
	}
	rows, err := tokenRows(tok, 0, "Maria", "")
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	writeTable(&table, facts, rows, []string{"Maria"})
	for _, want := range []string{"pair template: [CLS] question [SEP] context [SEP]", "text 1: \"Maria\"", `"maria"`, `[0, 5) "Maria"`} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("the table does not say %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := writeJSON(&js, facts, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(js.String()), "\n")
	var f tokenizerFacts
	var r row
	if len(lines) != 2 || json.Unmarshal([]byte(lines[0]), &f) != nil || json.Unmarshal([]byte(lines[1]), &r) != nil || f.VocabSize != 12 || r.Token != "maria" {
		t.Errorf("JSON lines:\n%s", js.String())
	}
}
