package sim

import (
	"context"
	"testing"
)

func TestLogitsBatchInvariant(t *testing.T) {
	// A window has the same logits alone and padded in a batch, at any row.
	w := []int64{101, 2001, 2002, 102, 3001, 3002, 3003, 102}
	alone := logits(batchOf(w))
	in := batchOf([]int64{101, 5, 102}, make10(4000), w, make10(5000), make10(6000))
	got := logits(in)
	row := 2 * in.Len
	for j := range w {
		if got.Start[row+j] != alone.Start[j] || got.End[row+j] != alone.End[j] {
			t.Fatalf("position %d: batched (%v, %v) vs alone (%v, %v)", j, got.Start[row+j], got.End[row+j], alone.Start[j], alone.End[j])
		}
		if got.Start[row+j] != startLogit(w[j], j) || got.End[row+j] != endLogit(w[j], j) {
			t.Fatalf("position %d: logits differ from StartLogit/EndLogit", j)
		}
	}
	// Padding after the short first row gets PadLogit.
	for j := 3; j < in.Len; j++ {
		if got.Start[j] != PadLogit || got.End[j] != PadLogit {
			t.Fatalf("padding position %d: (%v, %v), want %v", j, got.Start[j], got.End[j], float32(PadLogit))
		}
	}
}

func TestLogitsDependOnIDAndPosition(t *testing.T) {
	diffID, diffPos, diffStartEnd := 0, 0, 0
	for id := int64(1000); id < 1200; id++ {
		s := startLogit(id, 5)
		if s < -5 || s >= 5 {
			t.Fatalf("StartLogit(%d, 5) = %v outside [-5, 5)", id, s)
		}
		if e := endLogit(id, 5); e < -5 || e >= 5 {
			t.Fatalf("EndLogit(%d, 5) = %v outside [-5, 5)", id, e)
		}
		if s != startLogit(id+1, 5) {
			diffID++
		}
		if s != startLogit(id, 6) {
			diffPos++
		}
		if s != endLogit(id, 5) {
			diffStartEnd++
		}
		if s != startLogit(id, 5) {
			t.Fatal("StartLogit is not deterministic")
		}
	}
	for name, n := range map[string]int{"id": diffID, "position": diffPos, "start vs end": diffStartEnd} {
		if n < 190 {
			t.Errorf("logits change with the %s in only %d of 200 cases", name, n)
		}
	}
}

func TestRunReturnsLogits(t *testing.T) {
	r, _ := newRecorded(Options{})
	b := batchOf([]int64{101, 7, 8, 102}, []int64{101, 9, 102})
	got, err := r.Run(context.Background(), b)
	if err != nil {
		t.Fatal(err)
	}
	want := logits(b)
	if len(got.Start) != b.Tokens() || len(got.End) != b.Tokens() {
		t.Fatalf("%d/%d logits for %d positions", len(got.Start), len(got.End), b.Tokens())
	}
	for i := range want.Start {
		if got.Start[i] != want.Start[i] || got.End[i] != want.End[i] {
			t.Fatalf("position %d differs from Logits", i)
		}
	}
}
