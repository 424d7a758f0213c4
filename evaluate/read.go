package evaluate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"qa-shard/internal/errkind"
	"qa-shard/internal/format"
	"qa-shard/internal/record"
	"qa-shard/output"
)

// ErrInput marks a gold or answers file that cannot be read as such.
var ErrInput = errkind.NewUser("bad evaluation input")

// ReadGold reads a gold file in any of the formats eval takes, told apart
// by content: a SQuAD v1.1 or v2.0 JSON dataset; Hugging Face datasets'
// columns (id, question, context, answers.text), as JSON lines or Parquet;
// or gencorpus's gold lines (id, question, answer, token).
func ReadGold(path string) (GoldSet, error) {
	if _, ok, _ := output.ParquetParts(path); ok {
		return readColumnsGold(path)
	}
	squad, first, err := sniffGold(path)
	switch {
	case err != nil:
		return GoldSet{}, err
	case squad:
		return readSQuADGold(path)
	case first == nil:
		return GoldSet{}, fmt.Errorf("%w: %s holds no gold answers", ErrInput, path)
	}
	var probe struct {
		Answers json.RawMessage `json:"answers"`
	}
	if json.Unmarshal(first, &probe) == nil && len(probe.Answers) > 0 {
		return readColumnsGold(path)
	}
	return readLinesGold(path)
}

// sniffGold says whether a gold file is a SQuAD dataset, else returns its
// first non-blank line (nil for none).
func sniffGold(path string) (bool, []byte, error) {
	f, err := output.OpenText(path)
	if err != nil {
		return false, nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	head, _ := br.Peek(1 << 16)
	if format.IsSQuAD(bytes.NewReader(head)) {
		return true, nil, nil
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			return false, line, nil
		}
		if errors.Is(err, io.EOF) {
			return false, nil, nil
		}
		if err != nil {
			return false, nil, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
		}
	}
}

// readLinesGold reads gencorpus's gold file: one JSON object per line with
// id (the document's), question, answer and token.
func readLinesGold(path string) (GoldSet, error) {
	set := GoldSet{Kind: "gencorpus gold"}
	err := eachLine(path, func(n int, line []byte) error {
		var g struct {
			ID       string `json:"id"`
			Question string `json:"question"`
			Answer   string `json:"answer"`
			Token    *int   `json:"token"`
		}
		if err := json.Unmarshal(line, &g); err != nil {
			return err
		}
		if g.ID == "" || g.Question == "" {
			return errors.New("gold answer without id or question (a SQuAD dataset is one JSON document with \"data\"; Hugging Face datasets' rows have \"answers\")")
		}
		gold := Gold{ID: g.ID, Question: g.Question, Answers: []string{g.Answer}, Token: -1}
		if g.Token != nil {
			gold.Token = *g.Token
		}
		set.Questions = append(set.Questions, gold)
		return nil
	})
	if err == nil && len(set.Questions) == 0 {
		err = fmt.Errorf("%w: %s holds no gold answers", ErrInput, path)
	}
	return set, err
}

// ReadAnswers reads answer records as qa-shard writes them, in any of its
// answers formats (output/readback.go), by (document id, question); an
// error record counts as an empty answer. A second record for the same
// pair is an error.
func ReadAnswers(path string) (map[Key]Prediction, error) {
	out := map[Key]Prediction{}
	add := func(k Key, p Prediction) error {
		if _, dup := out[k]; dup {
			return fmt.Errorf("a second answer for document %s, question %q", k.ID, k.Question)
		}
		out[k] = p
		return nil
	}
	err := output.EachAnswer(path, func(_ int64, r record.Read) error {
		p := Prediction{Answer: r.Answer, Score: r.Score, Start: r.Start, End: r.End, QuestionID: r.QuestionID, Error: r.IsError}
		if r.SpanLogit != nil && r.NullLogit != nil {
			p.SpanLogit, p.NullLogit, p.Logits = *r.SpanLogit, *r.NullLogit, true
		}
		return add(Key{ID: r.ID, Question: r.Question}, p)
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	return out, nil
}

// idString turns a record id (a JSON string or number) into the text the
// gold file uses.
func idString(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(bytes.TrimSpace(raw))
}

func eachLine(path string, fn func(int, []byte) error) error {
	f, err := output.OpenText(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			if ferr := fn(n, line); ferr != nil {
				return fmt.Errorf("%w: %s line %d: %w", ErrInput, path, n, ferr)
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrInput, path, err)
		}
	}
}
