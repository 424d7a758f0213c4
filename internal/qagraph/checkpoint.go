package qagraph

import (
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"qa-shard/internal/checkpoint"
)

// Checkpoint is a Source over a checkpoint's tensors, found by
// transformers' names as transformers' loading finds them: the name
// itself, or the old LayerNorm.gamma and LayerNorm.beta for
// LayerNorm.weight and .bias. It remembers what the build took, and
// Unused names the rest (ignoring what transformers ignores too).
type Checkpoint struct {
	c    *checkpoint.Checkpoint
	used map[string]bool
}

// FromCheckpoint is the Source of c's tensors.
func FromCheckpoint(c *checkpoint.Checkpoint) *Checkpoint {
	return &Checkpoint{c: c, used: map[string]bool{}}
}

// Weight implements Source.
func (s *Checkpoint) Weight(name string, want []int64) (Weight, error) {
	t, found := s.find(name)
	if t == nil {
		return Weight{}, fmt.Errorf("%w: the checkpoint (%s) has no tensor %s, which the config implies: is it a question-answering checkpoint of this config (a base model has no qa_outputs)?", ErrWeights, s.c.Dir, name)
	}
	s.used[found] = true
	if t.DType == checkpoint.Other {
		return Weight{}, fmt.Errorf("%w: %s in %s is %s; weights must be F32, F16 or BF16", ErrWeights, found, t.File, t.TypeName)
	}
	if !slices.Equal(t.Shape, want) {
		return Weight{}, fmt.Errorf("%w: %s in %s has shape %v, but config.json implies %v", ErrWeights, found, t.File, t.Shape, want)
	}
	return Weight{Shape: t.Shape, Write: func(w io.Writer, transpose bool) error { return t.WriteFloat32(w, transpose) }}, nil
}

func (s *Checkpoint) find(name string) (*checkpoint.Tensor, string) {
	candidates := []string{name}
	if base, ok := strings.CutSuffix(name, "LayerNorm.weight"); ok {
		candidates = append(candidates, base+"LayerNorm.gamma")
	}
	if base, ok := strings.CutSuffix(name, "LayerNorm.bias"); ok {
		candidates = append(candidates, base+"LayerNorm.beta")
	}
	for _, n := range candidates {
		if t, ok := s.c.Tensor(n); ok {
			return t, n
		}
	}
	return nil, ""
}

// ignored are tensors a *ForQuestionAnswering model loaded by transformers
// has no use for either: buffers (position_ids, token_type_ids), a
// pooler, and pre-training heads left in a fine-tuned checkpoint.
var ignored = regexp.MustCompile(`(^|\.)(position_ids|token_type_ids)$|(^|\.)pooler\.|^cls\.|^lm_head\.|^lm_predictions\.|^mask_predictions\.|^generator_|^discriminator_predictions\.|^predictions\.|^pre_classifier\.|^vocab_(transform|layer_norm|projector)\.`)

// Unused implements Unused.
func (s *Checkpoint) Unused() []string {
	var left []string
	for _, n := range s.c.Names() {
		if !s.used[n] && !ignored.MatchString(n) {
			left = append(left, n)
		}
	}
	return left
}
