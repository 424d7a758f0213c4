package input

import (
	"fmt"
	"strings"
	"testing"

	"qa-shard/internal/readstate"
	"qa-shard/internal/record"
)

// key identifies a document's content for comparisons.
func key(d record.Document) string {
	keep := ""
	for _, k := range d.Keep {
		keep += string(k)
	}
	return fmt.Sprintf("%v|%s|%s|%d|%v|%v", d.Pos, d.ID, keep, len(d.Context), d.Questions, d.Err)
}

// TestSingleProcessReadsEverything: one process reads every format in
// the given order, with positions by byte offset (rows for Parquet).
func TestSingleProcessReadsEverything(t *testing.T) {
	files, err := Find(mixed(t, t.TempDir()))
	must(t, err)
	docs := readAll(t, openRank(t, files, 0, 1, nil, 0))
	if len(docs) != 450 {
		t.Fatalf("%d documents, want 450", len(docs))
	}
	for i, d := range docs {
		if d.Err != nil || d.Seq != int64(i) || string(d.ID) != fmt.Sprintf(`"d%d"`, i) || string(d.Keep[0]) != fmt.Sprintf(`"u%d"`, i) {
			t.Fatalf("doc %d: %+v", i, d)
		}
	}
	if docs[0].Pos != (record.Position{File: "a.jsonl"}) || docs[1].Pos.At != int64(3+len(line(0))+1+3) {
		t.Errorf("positions %v %v: the first line is at 0 (BOM included), the next after the blank line", docs[0].Pos, docs[1].Pos)
	}
	if p := docs[200].Pos; p != (record.Position{File: "c.parquet", At: 0, Row: true}) {
		t.Errorf("first Parquet row at %v", p)
	}
	if p := docs[449].Pos; p.File != "f.jsonl" || p.Row {
		t.Errorf("last document at %v", p)
	}
}

// TestRanksCoverOnce: for any world size, including more ranks than files
// or row groups, the ranks' documents in rank order are the single
// process's, each exactly once, and each rank reads only its share.
func TestRanksCoverOnce(t *testing.T) {
	files, err := Find(mixed(t, t.TempDir()))
	must(t, err)
	var want []string
	for _, d := range readAll(t, openRank(t, files, 0, 1, nil, 0)) {
		want = append(want, key(d))
	}
	for _, w := range []int{2, 3, 7, 16, 50} {
		var got []string
		var bytes []int64
		for r := range w {
			s := openRank(t, files, r, w, nil, 0)
			bytes = append(bytes, s.Bytes())
			for i, d := range readAll(t, s) {
				if d.Seq != int64(i) {
					t.Fatalf("w=%d rank %d: doc %d has Seq %d", w, r, i, d.Seq)
				}
				got = append(got, key(d))
			}
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("w=%d: ranks read %d documents; concatenated they differ from the single process's %d", w, len(got), len(want))
		}
		t.Logf("w=%d: bytes per rank %v", w, bytes)
	}
}

// TestMarksTrimmed: the per-document states kept for checkpoints are
// dropped once a checkpoint has passed them.
func TestMarksTrimmed(t *testing.T) {
	s := openRank(t, mustFind(t, mixed(t, t.TempDir())), 0, 1, nil, 0)
	for range 300 {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	if len(s.marks.list) != 300 {
		t.Fatalf("%d marks for 300 documents read", len(s.marks.list))
	}
	st := s.At(250)
	if len(s.marks.list) != 51 || st.Next.File != 2 {
		t.Errorf("after a checkpoint at 250: %d marks kept, resume in file %d", len(s.marks.list), st.Next.File)
	}
}

// TestWorkAddsUp: documents' Bytes add up exactly to the process's share
// (progress by work ends at 100%), and a resumed process's DoneBytes plus
// the rest's Bytes to the same.
func TestWorkAddsUp(t *testing.T) {
	files := mustFind(t, mixed(t, t.TempDir()))
	for _, w := range []int{1, 3} {
		for r := range w {
			s := openRank(t, files, r, w, nil, 0)
			var sum, half int64
			var st readstate.State
			docs := readAll(t, s)
			for i, d := range docs {
				sum += d.Bytes
				if i == len(docs)/2-1 {
					half = sum
				}
			}
			near := func(got int64) bool { return got == s.Bytes() }
			if !near(sum) {
				t.Errorf("w=%d rank %d: documents add up to %d bytes, the share is %d", w, r, sum, s.Bytes())
			}
			s2 := openRank(t, files, r, w, nil, 0)
			for range len(docs) / 2 {
				if _, err := s2.Next(); err != nil {
					t.Fatal(err)
				}
			}
			st = s2.At(int64(len(docs) / 2))
			resumed := openRank(t, files, r, w, &st, int64(len(docs)/2))
			var rest int64
			for _, d := range readAll(t, resumed) {
				rest += d.Bytes
			}
			if !near(resumed.DoneBytes()+rest) || resumed.DoneBytes() < half/2 {
				t.Errorf("w=%d rank %d: resumed at half: done %d (read before: %d) + rest %d, share %d", w, r, resumed.DoneBytes(), half, rest, s.Bytes())
			}
		}
	}
}
