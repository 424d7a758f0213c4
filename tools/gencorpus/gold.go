package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"unicode/utf8"

	"qa-shard/qa"
	"qa-shard/tokenizer"
)

// goldRecord is one line of the gold file; qa-shard eval reads it.
type goldRecord struct {
	ID       string `json:"id"`
	Question string `json:"question"`
	Kind     string `json:"kind"`
	Answer   string `json:"answer"`
	// Start and End are code-point offsets into the context, End exclusive.
	Start int `json:"start"`
	End   int `json:"end"`
	// Token is the index of the answer's first token among the context's
	// tokens (no question, no special tokens).
	Token int `json:"token"`
}

type goldWriter struct {
	f         *os.File
	w         *bufio.Writer
	enc       *json.Encoder
	tok       *tokenizer.Tokenizer
	questions []question
}

func newGoldWriter(path, tokPath string, qs []question) (*goldWriter, error) {
	tok, err := loadTokenizer(tokPath)
	if err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &goldWriter{f: f, w: w, enc: enc, tok: tok, questions: qs}, nil
}

// add writes the gold answers of one document, checking that every answer
// is where the generator says and starts a token. A document too short for
// all three fact sentences (a few dozen words) has gold answers only for
// the facts it holds.
func (g *goldWriter) add(id, text string, facts []fact) error {
	runes := []rune(text)
	toks := g.tok.Encode(text)
	for _, q := range g.questions {
		var f *fact
		for i := range facts {
			if facts[i].kind == q.kind {
				f = &facts[i]
			}
		}
		if f == nil {
			continue
		}
		end := f.start + utf8.RuneCountInString(f.answer)
		if end > len(runes) || string(runes[f.start:end]) != f.answer {
			return fmt.Errorf("%s: %s answer %q not at code points [%d,%d)", id, q.kind, f.answer, f.start, end)
		}
		token := -1
		for i, off := range toks.Offsets {
			if int(off.Start) == f.start {
				token = i
				break
			}
		}
		if token < 0 {
			return fmt.Errorf("%s: no token starts at the %s answer (code point %d)", id, q.kind, f.start)
		}
		if !endsToken(toks.Offsets[token:], end) {
			return fmt.Errorf("%s: no token ends at the %s answer %q (code point %d): a reader answering with whole tokens could not give it",
				id, q.kind, f.answer, end)
		}
		rec := goldRecord{ID: id, Question: q.text, Kind: q.kind, Answer: f.answer, Start: f.start, End: end, Token: token}
		if err := g.enc.Encode(rec); err != nil {
			return err
		}
	}
	return nil
}

// endsToken says whether one of offs (from the answer's first token on)
// ends at end before any starts at or after it.
func endsToken(offs []qa.Span, end int) bool {
	for _, o := range offs {
		if int(o.Start) >= end {
			return false
		}
		if int(o.End) == end {
			return true
		}
	}
	return false
}

// close flushes and closes the file; calling it twice is harmless.
func (g *goldWriter) close() error {
	if g.f == nil {
		return nil
	}
	err := g.w.Flush()
	if cerr := g.f.Close(); err == nil {
		err = cerr
	}
	g.f = nil
	return err
}
