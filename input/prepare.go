package input

import (
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// Prepare finds the files args name, rank r's share of them and the run's
// schema (filled into rec, which it returns), and refuses outputs that are
// or would become inputs (CheckOutputs). It reads no document: at most the
// first record, a few bytes of each file it owns and the footers of its
// Parquet files.
func Prepare(args []string, r shard.Rank, rec record.Options, idType string, outputs ...string) (*Plan, record.Options, error) {
	files, err := Find(args)
	if err != nil {
		return nil, rec, err
	}
	plan, err := Split(files, r)
	if err != nil {
		return nil, rec, err
	}
	if rec.Schema, err = Schema(plan.Files, rec, idType); err != nil {
		return nil, rec, err
	}
	return plan, rec, CheckOutputs(args, files, outputs...)
}
