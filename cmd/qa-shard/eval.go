package main

import (
	"fmt"
	"os"

	"qa-shard/internal/evaluate"
	"qa-shard/internal/logs"
)

// evalCmd prints the evaluation table; the flags and the scoring are
// package evaluate's.
func evalCmd(args []string) error {
	r, err := evaluate.Parse(args)
	if err != nil {
		return err
	}
	if _, err := logs.New(r.LogFormat, r.LogLevel); err != nil {
		return err
	}
	g, rows, err := evaluate.Files(r.Gold, r.Answers, r.Split)
	if err != nil {
		return err
	}
	if r.JSON {
		return evaluate.WriteJSON(os.Stdout, rows)
	}
	fmt.Printf("gold: %s\n", r.Gold)
	return evaluate.WriteTable(os.Stdout, g, rows)
}
