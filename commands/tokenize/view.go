// Package tokenize is `qa-shard tokenize`: it shows how a model folder's
// tokenizer reads texts: where the tokenizer came from and its components
// (Facts), each token of a text with its id and code-point offsets, or the
// first window the model would see of a (question, text) pair (Rows), as
// a table for a person or JSON lines.
package tokenize

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
)

// row is one token as tokenize prints it.
type row struct {
	Text   int    `json:"text"` // which TEXT argument
	Index  int    `json:"index"`
	ID     int32  `json:"id"`
	Token  string `json:"token"`
	Type   *int32 `json:"type_id,omitempty"` // with --question
	Start  int32  `json:"start"`             // code points into TEXT; -1 for a special token
	End    int32  `json:"end"`
	Source string `json:"source"` // the text covered, or "special" / "question"
}

// tokenizerFacts describe a tokenizer: what tokenize prints first.
type tokenizerFacts struct {
	Origin     string   `json:"origin"`
	Files      []string `json:"files"`
	Components []string `json:"components"`
	Template   string   `json:"pair_template"`
	CLS        string   `json:"cls_token,omitempty"`
	Pad        string   `json:"pad_token"`
	VocabSize  int      `json:"vocab_size"`
	// Mecab is the MeCab a Japanese BERT splits words with.
	Mecab *modeldir.Mecab `json:"mecab,omitempty"`
}

// describe is the facts of tok, read from a model folder as origin says.
func describe(tok *tokenizer.Tokenizer, origin modeldir.Origin) tokenizerFacts {
	tpl := tok.Template()
	names := func(ids []int32) string {
		var s []string
		for _, id := range ids {
			s = append(s, tok.Token(id))
		}
		return strings.Join(s, " ")
	}
	f := tokenizerFacts{Origin: origin.String(), Files: origin.Files, Components: tok.Components(),
		Template:  strings.Join(strings.Fields(fmt.Sprintf("%s question %s context %s", names(tpl.Before), names(tpl.Between), names(tpl.After))), " "),
		Pad:       tok.Token(tok.PadID()),
		VocabSize: tok.VocabSize(), Mecab: origin.Mecab}
	if tpl.HasCLS {
		f.CLS = tok.Token(tpl.CLS)
	}
	return f
}

// tokenRows are the tokens of text, the i-th TEXT (from 0), or with a question
// the first window of the pair. A pair that cannot be windowed is an
// error of qa.Windows.
func tokenRows(tok *tokenizer.Tokenizer, i int, text, question string) ([]row, error) {
	c := tok.Encode(text)
	runes := []rune(text)
	n := int32(len(runes))
	span := func(s qa.Span) string { return string(runes[min(s.Start, n):min(s.End, n)]) }
	if question == "" {
		rows := make([]row, c.Len())
		for k, id := range c.IDs {
			o := c.Offsets[k]
			rows[k] = row{Text: i, Index: k, ID: id, Token: tok.Token(id), Start: o.Start, End: o.End, Source: span(o)}
		}
		return rows, nil
	}
	ws, err := qa.Windows(tok.Encode(question), c, tok.Template(), qa.DefaultSettings())
	if err != nil {
		return nil, fmt.Errorf("the question and text %d: %w", i+1, err)
	}
	w := ws[0]
	rows := make([]row, len(w.IDs))
	for k, id := range w.IDs {
		typ := w.TypeIDs[k]
		r := row{Text: i, Index: k, ID: id, Token: tok.Token(id), Type: &typ, Start: -1, End: -1, Source: "special"}
		switch {
		case k >= w.QuestionStart && k < w.QuestionStart+w.QuestionLen:
			r.Source = "question"
		case k >= w.ContextStart && k < w.ContextStart+w.To-w.From:
			o := c.Offsets[w.From+k-w.ContextStart]
			r.Start, r.End, r.Source = o.Start, o.End, span(o)
		}
		rows[k] = r
	}
	return rows, nil
}

// writeTable writes the facts, then each text's rows, for a person.
func writeTable(w io.Writer, f tokenizerFacts, rows []row, texts []string) {
	fmt.Fprintf(w, "tokenizer: %s\n", f.Origin)
	for _, c := range f.Components {
		fmt.Fprintf(w, "  %s\n", c)
	}
	fmt.Fprintf(w, "  pair template: %s\n  cls token: %q, pad token: %q, vocabulary: %d ids\n", f.Template, f.CLS, f.Pad, f.VocabSize)
	last := -1
	for _, r := range rows {
		if r.Text != last {
			last = r.Text
			fmt.Fprintf(w, "\ntext %d: %q\n", r.Text+1, texts[r.Text])
		}
		typ := ""
		if r.Type != nil {
			typ = fmt.Sprintf("  type %d", *r.Type)
		}
		where := fmt.Sprintf("[%d, %d) %q", r.Start, r.End, r.Source)
		if r.Start < 0 {
			where = r.Source
		}
		fmt.Fprintf(w, "  %4d  %-18q id %-7d%s  %s\n", r.Index, r.Token, r.ID, typ, where)
	}
}

// writeJSON writes the facts as one JSON object, then one per row.
func writeJSON(w io.Writer, f tokenizerFacts, rows []row) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(f); err != nil {
		return err
	}
	for _, r := range rows {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	return nil
}
