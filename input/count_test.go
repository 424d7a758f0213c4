package input

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/internal/format"
)

// TestDocsCountsEveryRanksShare: for one process and for ranks, the
// count (plain JSONL lines with a BOM, blank lines and no final newline;
// Parquet rows) is exact before a document is read when nothing is
// compressed, and the total is exact, for every rank, once its compressed
// parts were read.
func TestDocsCountsEveryRanksShare(t *testing.T) {
	files, err := Find(mixed(t, t.TempDir()))
	must(t, err)
	for _, w := range []int{1, 2, 3, 7, 16} {
		var sum int64
		for r := range w {
			s := openRank(t, files, r, w, nil, 0)
			s.CountDocs(context.Background())
			before, est := s.Docs()
			packed := false
			for _, p := range s.plan.Parts {
				packed = packed || s.plan.Files[p.File].Format == format.Gzip || s.plan.Files[p.File].Format == format.Zstd
			}
			docs := int64(len(readAll(t, s)))
			n, est2 := s.Docs()
			if n != docs || est2 {
				t.Fatalf("world %d rank %d: Docs() = %d (estimate %v) after reading %d documents", w, r, n, est2, docs)
			}
			if !packed && (before != docs || est) {
				t.Fatalf("world %d rank %d: counted %d (estimate %v) before reading, read %d", w, r, before, est, docs)
			}
			sum += n
		}
		if sum != 450 {
			t.Fatalf("world %d: the ranks' totals add up to %d, want 450", w, sum)
		}
	}
}

// TestDocsEstimatesCompressedInput: while a compressed file is read, its
// documents are estimated from those read per compressed byte, marked as
// an estimate, within a fifth of the truth halfway through.
func TestDocsEstimatesCompressedInput(t *testing.T) {
	path := filepath.Join(t.TempDir(), "docs.jsonl.gz")
	must(t, corpus.WriteText(path, []byte(lines(0, 400)), 4000))
	files, err := Find([]string{path})
	must(t, err)
	s := openRank(t, files, 0, 1, nil, 0)
	defer s.Close()
	s.CountDocs(context.Background())
	if n, _ := s.Docs(); n != 0 {
		t.Fatalf("Docs() = %d before any compressed text was read, want unknown (0)", n)
	}
	for range 200 {
		if _, err := s.Next(); err != nil {
			t.Fatal(err)
		}
	}
	n, est := s.Docs()
	if !est || n < 320 || n > 480 {
		t.Fatalf("halfway: Docs() = %d (estimate %v), want an estimate of about 400", n, est)
	}
}

// TestCountLinesOfARange: the lines starting in a byte range, as a rank's
// reader takes them.
func TestCountLinesOfARange(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.jsonl")
	text := "{\"a\":1}\n\n  \n{\"b\":2}\r\n{\"c\":3}"
	must(t, os.WriteFile(path, []byte(text), 0o644))
	b := int64(strings.Index(text, "{\"b\""))
	for _, tc := range []struct {
		from, to, want int64
	}{
		{0, -1, 3}, {0, b, 1}, {0, b + 1, 2}, {1, -1, 2}, {b, b + 1, 1}, {b + 1, -1, 1}, {int64(len(text)), -1, 0},
	} {
		got, err := countLines(context.Background(), path, tc.from, tc.to)
		if err != nil || got != tc.want {
			t.Errorf("countLines [%d, %d) = %d, %v; want %d", tc.from, tc.to, got, err, tc.want)
		}
	}
}
