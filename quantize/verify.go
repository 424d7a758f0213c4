package quantize

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"

	"qa-shard/internal/errkind"
	"qa-shard/qa"
	"qa-shard/tokenizer"
	"qa-shard/worker"
)

// ErrUnusable: ONNX Runtime refused the model just written.
var ErrUnusable = errkind.NewInternal("the quantized model does not load")

// Sample is how the int8 copy compares with the original on one window.
type Sample struct {
	Tokens        int     // the window's length
	MaxDiff, Span float64 // largest logit difference; range of the original's logits
}

// sampleQuestion and sampleContext make one realistic window for the check.
const (
	sampleQuestion = "Who designed the bridge over the river?"
	sampleContext  = "The old bridge over the river was designed in 1889 by the engineer Maria Costa, " +
		"who also built the railway station and the harbor walls. Her company, founded in Lisbon with two partners, " +
		"employed more than three hundred workers at its peak and moved its headquarters to Porto after the war."
)

// verify runs a sample window through the original and the quantized
// model and compares their logits. worker.Init must have been called.
func verify(orig, quant string) (Sample, error) {
	fm, err := worker.OpenModel(orig)
	if err != nil {
		return Sample{}, err
	}
	qm, err := worker.OpenModel(quant)
	if err != nil {
		return Sample{}, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	if !qm.QuantizedActivations {
		return Sample{}, fmt.Errorf("%w: it has no DynamicQuantize operator", ErrUnusable)
	}
	tok, err := tokenizer.Load(filepath.Join(quant, "tokenizer.json"))
	if err != nil {
		return Sample{}, fmt.Errorf("%w: %w", worker.ErrConfig, err)
	}
	ws, err := qa.Windows(tok.Encode(sampleQuestion), tok.Encode(sampleContext), tok.Template(), qa.DefaultSettings())
	if err != nil {
		return Sample{}, err
	}
	b := windowBatch(ws[0])
	var res [2]qa.Logits
	for i, m := range []*worker.Model{fm, qm} {
		r, err := worker.NewReplica(m, worker.ReplicaOptions{Name: "check", Threads: runtime.NumCPU()})
		if err != nil {
			return Sample{}, err
		}
		res[i], err = r.Run(context.Background(), b)
		r.Close()
		if err != nil {
			if i == 1 {
				err = fmt.Errorf("%w: %w", ErrUnusable, err)
			}
			return Sample{}, err
		}
	}
	c := Sample{Tokens: b.Len}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, pair := range [][2][]float32{{res[0].Start, res[1].Start}, {res[0].End, res[1].End}} {
		for j, f := range pair[0] {
			c.MaxDiff = max(c.MaxDiff, math.Abs(float64(f-pair[1][j])))
			lo, hi = min(lo, float64(f)), max(hi, float64(f))
		}
	}
	c.Span = hi - lo
	return c, nil
}

// windowBatch lays one window out as a batch of one, unpadded.
func windowBatch(w qa.Window) qa.Batch {
	n := len(w.IDs)
	b := qa.Batch{Rows: 1, Len: n, InputIDs: make([]int64, n), AttentionMask: make([]int64, n), TypeIDs: make([]int64, n)}
	for i, id := range w.IDs {
		b.InputIDs[i], b.AttentionMask[i], b.TypeIDs[i] = int64(id), 1, int64(w.TypeIDs[i])
	}
	return b
}

// Check is Verify for a copy just written by Dir: a copy ONNX Runtime
// refuses is removed, and the error says so.
func Check(orig, quant string) (Sample, error) {
	c, err := verify(orig, quant)
	switch {
	case errors.Is(err, ErrUnusable):
		os.RemoveAll(quant)
		return c, fmt.Errorf("checking the result: %w (%s removed; please report this model)", err, quant)
	case err != nil:
		return c, fmt.Errorf("checking the result: %w", err)
	}
	return c, nil
}
