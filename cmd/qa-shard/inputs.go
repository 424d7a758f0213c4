package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.uber.org/zap"

	"qa-shard/input"
	"qa-shard/shard"
)

// inputs is what a run reads: its share of the input files, and how
// records are read.
type inputs struct {
	plan   *input.Plan
	record shard.Options
}

// openInputs finds the input files, this process's rank and its share of
// them (giving a rank its own output files), and the run's schema. It
// reads no document: at most the first record, a few bytes of each file
// it owns and the footers of its Parquet files.
func openInputs(o *options, questions []string, log *zap.Logger) (*inputs, error) {
	files, err := input.Find(o.inputs)
	if err != nil {
		return nil, err
	}
	r, err := shard.DetectRank(o.rank, o.worldSize, os.LookupEnv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errUsage, err)
	}
	plan, err := input.Split(files, r)
	if err != nil {
		return nil, err
	}
	rec := shard.Options{MaxLineBytes: o.maxLineBytes, Questions: questions, Fields: o.fields}
	if rec.Schema, err = input.Schema(plan.Files, rec, o.idType); err != nil {
		return nil, err
	}
	if err := notAnInput(o.inputs, files, o.output, o.logits); err != nil {
		return nil, err
	}
	if r.World > 1 {
		o.output, o.logits = shard.RankPath(o.output, r), shard.RankPath(o.logits, r)
		log.Info("rank", zap.Int("rank", r.Rank), zap.Int("world_size", r.World), zap.String("from", r.Source),
			zap.Int64("input_from_byte", plan.Lo), zap.Int64("input_to_byte", plan.Hi), zap.Int("parts", len(plan.Parts)), zap.String("output", o.output))
	}
	return &inputs{plan: plan, record: rec}, nil
}

// notAnInput refuses an output that is, or would become, an input: one
// of the input files, or a file an input folder would list on a rerun
// (the rerun would then read answers as documents).
func notAnInput(args []string, files []input.File, outputs ...string) error {
	for _, out := range outputs {
		if out == "" || out == "-" {
			continue
		}
		abs, _ := filepath.Abs(out)
		for _, f := range files {
			if p, _ := filepath.Abs(f.Path); p == abs || strings.HasPrefix(p, abs+string(filepath.Separator)) {
				return fmt.Errorf("%w: --output %s is also an input (%s): write it outside the input folders", errUsage, out, f.Path)
			}
		}
		for _, arg := range args {
			dir, _ := filepath.Abs(arg)
			if st, err := os.Stat(arg); err == nil && st.IsDir() && strings.HasPrefix(abs, dir+string(filepath.Separator)) && input.IsInputName(filepath.Base(out)) {
				return fmt.Errorf("%w: --output %s is inside the input folder %s, where a rerun would read it as input: write it elsewhere", errUsage, out, arg)
			}
		}
	}
	return nil
}

// checkKeep refuses kept fields that would clash with a record's own keys.
func checkKeep(keep []string) error {
	own := []string{"id", "question", "answer", "score", "start", "end", "windows", "answers", "file", "offset", "row", "error"}
	for i, k := range keep {
		switch {
		case k == "":
			return fmt.Errorf("%w: --keep-fields has an empty name", errUsage)
		case slices.Contains(own, k):
			return fmt.Errorf("%w: --keep-fields %s: the output records have a %q of their own (%s)", errUsage, k, k, strings.Join(own, ", "))
		case slices.Contains(keep[:i], k):
			return fmt.Errorf("%w: --keep-fields names %s twice", errUsage, k)
		}
	}
	return nil
}
