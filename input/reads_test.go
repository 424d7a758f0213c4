package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/shard"
)

// TestRankReadsItsShare: rank r of 16 reads at most a sixteenth of the
// input (plus a bounded margin: the line that straddles its start, read
// buffers, the first record for the schema) before its first document and
// in all, fresh and resumed mid-block: fingerprinting reads nothing
// besides. Counted on every byte read from the files.
func TestRankReadsItsShare(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	for i := 0; b.Len() < 24<<20; i++ {
		fmt.Fprintf(&b, `{"id": "d%d", "context": "%s"}`+"\n", i, strings.Repeat("word ", 20+i%200))
	}
	text := []byte(b.String())
	plain := filepath.Join(dir, "big.jsonl")
	must(t, os.WriteFile(plain, text, 0o644))
	pq := filepath.Join(dir, "big.parquet")
	var rows []pqDoc
	for i := range 40000 {
		rows = append(rows, pqDoc{ID: fmt.Sprintf("d%d", i), Context: fmt.Sprintf("%d %s", i, strings.Repeat("word ", 20+i%200))})
	}
	must(t, corpus.WriteParquet(pq, rows, 500))
	const world, margin = 16, 1 << 20
	for _, path := range []string{plain, pq} {
		files := mustFind(t, []string{path})
		size := files[0].Size
		share := size / world
		for _, r := range []int{0, 7, 14, 15} {
			n := counting(t)
			plan, err := Split(append([]File(nil), files...), shard.Rank{Rank: r, World: world})
			must(t, err)
			opt := options()
			opt.Fields.Keep, opt.Schema.Keep = nil, nil
			opt.Schema, err = Schema(plan.Files, opt, "auto")
			must(t, err)
			s, err := plan.Open(opt, nil, 0)
			must(t, err)
			if len(plan.Parts) == 0 {
				// The last sixteenth of a Parquet file can be its footer,
				// which holds no rows: that rank has nothing to do.
				t.Logf("%s rank %d of %d owns no rows (bytes %d-%d)", filepath.Base(path), r, world, plan.Block.From, plan.Block.To)
				continue
			}
			if _, err := s.Next(); err != nil {
				t.Fatalf("%s rank %d: %v (parts %+v)", filepath.Base(path), r, err, plan.Parts)
			}
			first := n.Load()
			docs := int64(1)
			for ; ; docs++ {
				if _, err := s.Next(); err != nil {
					break
				}
				if docs == 200 {
					// resume from here, counted on its own
					st := s.At(docs)
					m := counting(t)
					plan2, err := Split(append([]File(nil), files...), shard.Rank{Rank: r, World: world})
					must(t, err)
					s2, err := plan2.Open(opt, &st, docs)
					must(t, err)
					if _, err := s2.Next(); err != nil {
						t.Fatal(err)
					}
					resumed := m.Load()
					s2.Close()
					if resumed > share+margin {
						t.Errorf("%s rank %d resumed: read %d bytes before its first document, a sixteenth is %d", filepath.Base(path), r, resumed, share)
					}
					t.Logf("%s rank %d of %d: resumed after 200 documents, read %d bytes before the next (a sixteenth: %d)", filepath.Base(path), r, world, resumed, share)
				}
			}
			s.Close()
			if first > share+margin || n.Load() > share+margin {
				t.Errorf("%s rank %d: read %d bytes before its first document and %d in all; a sixteenth of %d is %d", filepath.Base(path), r, first, n.Load(), size, share)
			}
			t.Logf("%s rank %d of %d: %d documents; %d bytes read before the first, %d in all (a sixteenth: %d)", filepath.Base(path), r, world, docs, first, n.Load(), share)
		}
	}
}
