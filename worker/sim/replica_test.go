package sim

import (
	"context"
	"testing"
	"time"
)

func TestDelayScalesWithTokensAndSpeed(t *testing.T) {
	fast, rf := newRecorded(Options{Rate: 1000, Speed: 1})
	slow, rs := newRecorded(Options{Rate: 1000, Speed: 0.25})
	ctx := context.Background()
	for _, tc := range []struct {
		rows, l int
		want    time.Duration // at speed 1: rows*l / 1000 tokens per second
	}{
		{1, 8, 8 * time.Millisecond},
		{4, 64, 256 * time.Millisecond},
		{10, 100, time.Second},
	} {
		b := uniform(tc.rows, tc.l, 1000)
		if _, err := fast.Run(ctx, b); err != nil {
			t.Fatal(err)
		}
		if _, err := slow.Run(ctx, b); err != nil {
			t.Fatal(err)
		}
		if got := rf.last(); got != tc.want {
			t.Errorf("%dx%d at speed 1: delay %v, want %v", tc.rows, tc.l, got, tc.want)
		}
		if got := rs.last(); got != 4*tc.want {
			t.Errorf("%dx%d at speed 0.25: delay %v, want %v", tc.rows, tc.l, got, 4*tc.want)
		}
	}
}

func TestDelayCountsPadding(t *testing.T) {
	r, rec := newRecorded(Options{Rate: 1000})
	// Two rows padded to 10: 20 positions, though only 11 are real.
	b := batchOf(make10(1), []int64{5})
	if _, err := r.Run(context.Background(), b); err != nil {
		t.Fatal(err)
	}
	if got := rec.last(); got != 20*time.Millisecond {
		t.Fatalf("delay %v, want 20ms for 2x10 padded positions", got)
	}
	st := r.Stats()
	if st.Tokens != 11 || st.PaddedTokens != 20 || st.Windows != 2 || st.Batches != 1 {
		t.Fatalf("stats %+v, want 11 tokens, 20 padded, 2 windows, 1 batch", st)
	}
}

func make10(first int64) []int64 {
	out := make([]int64, 10)
	for i := range out {
		out[i] = first + int64(i)
	}
	return out
}

func TestJitterDeterministicBoundedAndVaried(t *testing.T) {
	a, ra := newRecorded(Options{Rate: 1e6, Jitter: 0.2, Seed: 7})
	b, rb := newRecorded(Options{Name: "sim:1", Rate: 1e6, Jitter: 0.2, Seed: 7})
	base := 64 * 64 * time.Second / 1e6
	distinct := map[time.Duration]bool{}
	for i := range 50 {
		batch := uniform(64, 64, int64(1000+i))
		if _, err := a.Run(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		if _, err := b.Run(context.Background(), batch); err != nil {
			t.Fatal(err)
		}
		da, db := ra.last(), rb.last()
		if da != db {
			t.Fatalf("batch %d: same seed, different replicas: %v vs %v; jitter must follow the batch", i, da, db)
		}
		if lo, hi := time.Duration(float64(base)*0.8), time.Duration(float64(base)*1.2); da < lo || da > hi {
			t.Fatalf("batch %d: delay %v outside [%v, %v]", i, da, lo, hi)
		}
		distinct[da] = true
	}
	if len(distinct) < 40 {
		t.Fatalf("only %d distinct delays over 50 batches: jitter does not vary", len(distinct))
	}
	c := New(Options{Rate: 1e6, Jitter: 0.2, Seed: 8})
	same := 0
	for i := range 50 {
		batch := uniform(64, 64, int64(1000+i))
		if c.Delay(batch) == a.Delay(batch) {
			same++
		}
	}
	if same > 5 {
		t.Fatalf("seeds 7 and 8 give the same delay on %d of 50 batches", same)
	}
}
