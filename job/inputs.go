package job

import (
	"os"

	"go.uber.org/zap"

	"qa-shard/input"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// inputs is what a run reads: its share of the input files, and how
// records are read.
type inputs struct {
	plan   *input.Plan
	record record.Options
	// paused is told when standard input has nothing more to read at once
	// (record.Options.Idle): the batcher then cuts what it has.
	paused chan struct{}
}

// openInputs finds this process's rank (ranks) and its share of the input
// files (giving a rank its own output files in out) and the run's schema.
func openInputs(o InputOptions, ranks RankOptions, out *OutputOptions, questions []string, log *zap.Logger) (*inputs, error) {
	r, err := shard.Detect(ranks.Rank, ranks.WorldSize, os.LookupEnv)
	if err != nil {
		return nil, err
	}
	rec := record.Options{MaxLineBytes: o.MaxLineBytes, Questions: questions, Fields: o.Fields}
	plan, rec, err := input.Prepare(o.Inputs, r, rec, o.IDType, input.Output{Flag: "--output", Path: out.Output}, input.Output{Flag: "--logits", Path: out.Logits})
	if err != nil {
		return nil, err
	}
	if r.World > 1 {
		out.Output, out.Logits = shard.Path(out.Output, r), shard.Path(out.Logits, r)
		log.Info("rank", zap.Int("rank", r.Rank), zap.Int("world_size", r.World), zap.String("from", r.Source),
			zap.Int64("input_from_byte", plan.Block.From), zap.Int64("input_to_byte", plan.Block.To), zap.Int("parts", len(plan.Parts)), zap.String("output", out.Output))
	}
	paused := make(chan struct{}, 1)
	rec.Idle = func() {
		select {
		case paused <- struct{}{}:
		default:
		}
	}
	return &inputs{plan: plan, record: rec, paused: paused}, nil
}
