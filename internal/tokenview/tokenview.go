package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"qa-shard/internal/cli"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

const tokenizeHelp = `Usage: qa-shard tokenize --model DIR [--question Q] [--json] TEXT...

Shows how qa-shard reads a model folder's tokenizer, before a long run:
where it came from (tokenizer.json as written, or converted from the slow
tokenizer's files), its components, its special tokens, and each TEXT's
tokens with their ids and character offsets (code points into TEXT, as the
answers' start and end count them). With --question, each TEXT is a context
and the first window the model would see is shown instead: the question
and the context framed by the pair template, with type ids. Nothing is
guessed from the folder's name; a folder qa-shard refuses exits 2 with the
reason, as a run would.`

// tokenRow is one token as tokenize prints it.
type tokenRow struct {
	Text   int    `json:"text"` // which TEXT argument
	Index  int    `json:"index"`
	ID     int32  `json:"id"`
	Token  string `json:"token"`
	Type   *int32 `json:"type_id,omitempty"` // with --question
	Start  int32  `json:"start"`             // code points into TEXT; -1 for a special token
	End    int32  `json:"end"`
	Source string `json:"source"` // the text covered, or "special" / "question"
}

// tokenizeCmd prints how a model folder's tokenizer reads the texts given.
func tokenizeCmd(args []string) error {
	fs := pflag.NewFlagSet("qa-shard tokenize", pflag.ContinueOnError)
	dir := fs.String("model", "", "model folder (tokenizer.json, or the slow tokenizer's files)")
	question := fs.String("question", "", "pair each TEXT with this question and show the first window")
	asJSON := fs.Bool("json", false, "one JSON object per token (after one describing the tokenizer)")
	mecabLib := fs.String("mecab-lib", "", "libmecab, for a MeCab Japanese BERT (default $QA_SHARD_MECAB_LIB, else libmecab.so.2)")
	mecabDicdir := fs.String("mecab-dicdir", "", "MeCab dictionary folder, instead of searching for the one the model names (default $QA_SHARD_MECAB_DICDIR)")
	if err := cli.Parse(fs, args, tokenizeHelp); err != nil {
		return err
	}
	if *dir == "" || fs.NArg() == 0 {
		return fmt.Errorf("%w: pass --model DIR and at least one text: qa-shard tokenize --model DIR \"some text\"", errUsage)
	}
	tok, origin, err := modeldir.OpenWith(*dir, mecabOptions(*mecabLib, *mecabDicdir))
	if err != nil {
		return fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	info := tokenizerInfo(tok, origin)
	var rows []tokenRow
	for i, text := range fs.Args() {
		r, err := tokenRows(tok, i, text, *question)
		if err != nil {
			return err
		}
		rows = append(rows, r...)
	}
	if *asJSON {
		return writeTokensJSON(os.Stdout, info, rows)
	}
	writeTokens(os.Stdout, info, rows, fs.Args())
	return nil
}

// mecabOptions are the MeCab flags over their environment variables.
func mecabOptions(lib, dicdir string) modeldir.Options {
	o := modeldir.EnvOptions()
	if lib != "" {
		o.MecabLib = lib
	}
	if dicdir != "" {
		o.MecabDicdir = dicdir
	}
	return o
}

// tokenizerFacts is the description tokenize prints first.
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

func tokenizerInfo(tok *tokenizer.Tokenizer, origin modeldir.Origin) tokenizerFacts {
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

// tokenRows are TEXT's tokens, or with a question the first window of the
// pair.
func tokenRows(tok *tokenizer.Tokenizer, i int, text, question string) ([]tokenRow, error) {
	c := tok.Encode(text)
	runes := []rune(text)
	n := int32(len(runes))
	span := func(s qa.Span) string { return string(runes[min(s.Start, n):min(s.End, n)]) }
	if question == "" {
		rows := make([]tokenRow, c.Len())
		for k, id := range c.IDs {
			o := c.Offsets[k]
			rows[k] = tokenRow{Text: i, Index: k, ID: id, Token: tok.Token(id), Start: o.Start, End: o.End, Source: span(o)}
		}
		return rows, nil
	}
	ws, err := qa.Windows(tok.Encode(question), c, tok.Template(), qa.DefaultSettings())
	if err != nil {
		return nil, fmt.Errorf("%w: the question and text %d: %w", errUsage, i+1, err)
	}
	w := ws[0]
	rows := make([]tokenRow, len(w.IDs))
	for k, id := range w.IDs {
		typ := w.TypeIDs[k]
		r := tokenRow{Text: i, Index: k, ID: id, Token: tok.Token(id), Type: &typ, Start: -1, End: -1, Source: "special"}
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

func writeTokens(w io.Writer, f tokenizerFacts, rows []tokenRow, texts []string) {
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

func writeTokensJSON(w io.Writer, f tokenizerFacts, rows []tokenRow) error {
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
