package main

import (
	"fmt"
	"os"

	"qa-shard/internal/tokenview"
	"qa-shard/tokenizer/modeldir"
	"qa-shard/worker"
)

// tokenizeCmd prints how a model folder's tokenizer reads the texts given.
func tokenizeCmd(args []string) error {
	r, err := tokenview.Parse(args)
	if err != nil {
		return err
	}
	tok, origin, err := modeldir.OpenWith(r.Model, r.Mecab)
	if err != nil {
		return fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	info := tokenview.Describe(tok, origin)
	var rows []tokenview.Row
	for i, text := range r.Texts {
		rs, err := tokenview.Rows(tok, i, text, r.Question)
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		rows = append(rows, rs...)
	}
	if r.JSON {
		return tokenview.WriteJSON(os.Stdout, info, rows)
	}
	tokenview.WriteTable(os.Stdout, info, rows, r.Texts)
	return nil
}
