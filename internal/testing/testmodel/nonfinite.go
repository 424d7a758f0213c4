package testmodel

import (
	"encoding/binary"
	"io"
	"math"
)

// WithInitStd draws the random weights with this standard deviation
// instead of BERT's 0.02. A huge one (1e30) overflows float32 in the first
// layer, so every logit is NaN: the model a bad float16 export or an
// overflow gives, which the runtime must refuse.
func WithInitStd(std float32) Option { return func(o *options) { o.std = std } }

// WithInfiniteToken makes the word embedding of token id +Inf, so every
// window holding that token gives NaN logits and every other window is
// unchanged: a model that overflows only on some inputs.
func WithInfiniteToken(id int) Option {
	return func(o *options) { o.infinite = append(o.infinite, id) }
}

// initStdOf is the standard deviation of the random weights.
func (o options) initStdOf() float32 {
	if o.std != 0 {
		return o.std
	}
	return initStd
}

// infiniteRows wraps the word embedding's fill so that the rows of the
// given token ids are +Inf; rows of width values each.
func infiniteRows(fill func(io.Writer) error, ids []int, width int) func(io.Writer) error {
	if len(ids) == 0 {
		return fill
	}
	rows := map[int]bool{}
	for _, id := range ids {
		rows[id] = true
	}
	return func(w io.Writer) error {
		return fill(&rowWriter{w: w, rows: rows, rowBytes: 4 * width})
	}
}

// rowWriter replaces the float32 values of chosen rows by +Inf as a
// tensor's bytes stream through it.
type rowWriter struct {
	w        io.Writer
	rows     map[int]bool
	rowBytes int
	off      int
}

func (r *rowWriter) Write(p []byte) (int, error) {
	buf := append([]byte(nil), p...)
	for i := 0; i+4 <= len(buf); i += 4 {
		if r.rows[(r.off+i)/r.rowBytes] {
			binary.LittleEndian.PutUint32(buf[i:], math.Float32bits(float32(math.Inf(1))))
		}
	}
	r.off += len(p)
	return r.w.Write(buf)
}

// headStd is the spread of the head's weights: wider than BERT's 0.02, so
// that an untrained model still yields logits spread over a few units, not
// all nearly equal; WithInitStd sets it too.
func (o options) headStd(p Preset) float32 {
	if o.std != 0 {
		return o.std
	}
	return float32(2 / math.Sqrt(float64(p.Hidden)))
}
