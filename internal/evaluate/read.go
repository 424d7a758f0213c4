package evaluate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"qa-shard/internal/errkind"
	"qa-shard/output"
)

// ErrInput marks a gold or answers file that cannot be read as such.
var ErrInput = errkind.NewUser("bad evaluation input")

// ReadGold reads gencorpus's gold file: one JSON object per line with id,
// question, answer and token.
func ReadGold(path string) ([]Gold, error) {
	var out []Gold
	err := eachLine(path, func(n int, line []byte) error {
		var g Gold
		if err := json.Unmarshal(line, &g); err != nil {
			return err
		}
		if g.ID == "" || g.Question == "" {
			return errors.New("gold answer without id or question")
		}
		out = append(out, g)
		return nil
	})
	if err == nil && len(out) == 0 {
		err = fmt.Errorf("%w: %s holds no gold answers", ErrInput, path)
	}
	return out, err
}

// ReadAnswers reads answer records as qa-shard writes them, in any of its
// answers formats (output/readback.go); an error record counts as an empty answer.
// A second record for the same pair is an error.
func ReadAnswers(path string) (map[Key]string, error) {
	out := map[Key]string{}
	add := func(k Key, answer string) error {
		if _, dup := out[k]; dup {
			return fmt.Errorf("a second answer for document %s, question %q", k.ID, k.Question)
		}
		out[k] = answer
		return nil
	}
	if parts, ok, err := output.ParquetParts(path); ok {
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		for _, part := range parts {
			err := output.EachParquetRow(part, func(_ int64, id, question, answer string) error {
				return add(Key{ID: id, Question: question}, answer)
			})
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrInput, part, err)
			}
		}
		return out, nil
	}
	err := eachLine(path, func(n int, line []byte) error {
		var r struct {
			ID       json.RawMessage `json:"id"`
			Question string          `json:"question"`
			Answer   string          `json:"answer"`
		}
		if err := json.Unmarshal(line, &r); err != nil {
			return err
		}
		return add(Key{ID: idString(r.ID), Question: r.Question}, r.Answer)
	})
	return out, err
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
