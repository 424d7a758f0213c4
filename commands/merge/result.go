package merge

import (
	"fmt"

	"go.uber.org/zap"
)

// Log says what the merge wrote into output (and logits, "" when no
// logits folder was asked for), and what it left where it was.
func (r result) Log(log *zap.Logger, output, logits string) {
	converted := ""
	if r.From != r.To {
		converted = fmt.Sprintf(" (%s, from the ranks' %s)", r.To, r.From)
	}
	log.Info(fmt.Sprintf("merged %d ranks, %d documents, into %s%s", r.Ranks, r.Documents, output, converted), zap.Int("ranks", r.Ranks),
		zap.Int64("documents", r.Documents), zap.String("output", output), zap.String("format", r.To.String()), zap.String("ranks_format", r.From.String()),
		zap.Int("answer_parts", r.AnswerParts), zap.String("logits", logits), zap.Int("logits_parts", r.LogitsParts))
	if r.LogitsLeft > 0 {
		log.Warn(fmt.Sprintf("the ranks also wrote logits (%d parts), which this merge left where they are: add --logits DIR to merge them into one folder", r.LogitsLeft),
			zap.Int("logits_parts_not_merged", r.LogitsLeft))
	}
	if r.Leftover != "" {
		log.Warn("the merge is complete, but "+r.Leftover, zap.String("leftover", r.Leftover))
	}
}
