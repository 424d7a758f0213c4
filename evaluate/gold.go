package evaluate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"qa-shard/input"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// The gold formats of labelled QA data: SQuAD's JSON and the columns of
// Hugging Face datasets' squad and squad_v2. Both name each question by
// its own id and give its answers as texts (with character offsets, not
// token positions), several per question in dev sets, none for a SQuAD
// 2.0 question without an answer.

// readSQuADGold reads a SQuAD v1.1 or v2.0 dataset's questions, in order.
func readSQuADGold(path string) (GoldSet, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return GoldSet{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	var ds struct {
		Version string `json:"version"`
		Data    []struct {
			Paragraphs []struct {
				QAs []struct {
					ID       json.RawMessage `json:"id"`
					Question string          `json:"question"`
					Answers  []struct {
						Text string `json:"text"`
					} `json:"answers"`
				} `json:"qas"`
			} `json:"paragraphs"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &ds); err != nil {
		return GoldSet{}, fmt.Errorf("%w: %s starts as a SQuAD dataset but is not one: %w", ErrInput, path, err)
	}
	set := GoldSet{ByQuestion: true, Kind: "SQuAD JSON"}
	if ds.Version != "" {
		set.Kind += " " + ds.Version
	}
	for _, art := range ds.Data {
		for _, p := range art.Paragraphs {
			for _, qa := range p.QAs {
				g := Gold{ID: idString(qa.ID), Question: qa.Question, Token: -1}
				for _, a := range qa.Answers {
					g.Answers = append(g.Answers, a.Text)
				}
				set.Questions = append(set.Questions, g)
			}
		}
	}
	return set, checkGold(set, path)
}

// readColumnsGold reads Hugging Face datasets' columns, one question per
// record (id, question, answers.text; title, context and
// answers.answer_start are not needed), from JSON lines (plain or
// compressed) or Parquet files, through package input's readers.
func readColumnsGold(path string) (GoldSet, error) {
	files, err := input.Find([]string{path})
	if err != nil {
		return GoldSet{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	// The reader wants a text to answer from; the gold needs none, so
	// the id stands in for it and the context column is not required.
	opt := record.Options{
		Fields: record.Fields{ID: "id", Context: "id", Question: "question", Keep: []string{"answers.text"}},
		Schema: record.Schema{ID: record.String, Keep: []record.Kind{record.JSON}},
	}
	plan, err := input.Split(files, shard.Rank{World: 1})
	if err != nil {
		return GoldSet{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	r, err := plan.Open(opt, nil, 0)
	if err != nil {
		return GoldSet{}, fmt.Errorf("%w: %w", ErrInput, err)
	}
	defer r.Close()
	set := GoldSet{ByQuestion: true, Kind: "Hugging Face datasets' columns"}
	for {
		d, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return GoldSet{}, fmt.Errorf("%w: %w", ErrInput, err)
		}
		if d.Err != nil {
			return GoldSet{}, fmt.Errorf("%w: %s: %w", ErrInput, d.Pos, d.Err)
		}
		g := Gold{ID: idString(d.ID), Question: strings.Join(d.Questions, " "), Token: -1}
		if raw := d.Keep[0]; len(raw) > 0 && string(raw) != "null" {
			if err := json.Unmarshal(raw, &g.Answers); err != nil {
				return GoldSet{}, fmt.Errorf("%w: %s: answers.text must be a list of strings: %w", ErrInput, d.Pos, err)
			}
		} else {
			return GoldSet{}, fmt.Errorf("%w: %s: no answers.text (Hugging Face datasets' squad columns: id, title, context, question, answers.text, answers.answer_start)", ErrInput, d.Pos)
		}
		set.Questions = append(set.Questions, g)
	}
	return set, checkGold(set, path)
}

// checkGold refuses a gold set matched by question id in which an id is
// missing or repeated (the official script keys everything by it).
func checkGold(set GoldSet, path string) error {
	if len(set.Questions) == 0 {
		return fmt.Errorf("%w: %s holds no gold answers", ErrInput, path)
	}
	seen := make(map[string]bool, len(set.Questions))
	for _, g := range set.Questions {
		switch {
		case g.ID == "" || g.ID == "null":
			return fmt.Errorf("%w: %s: the question %q has no id", ErrInput, path, g.Question)
		case seen[g.ID]:
			return fmt.Errorf("%w: %s: question id %s appears twice", ErrInput, path, g.ID)
		}
		seen[g.ID] = true
	}
	return nil
}
