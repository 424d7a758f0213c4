package input

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/internal/fingerprint"
	"qa-shard/internal/readstate"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// line is record i of a test corpus, a few hundred bytes, some long.
func line(i int) string {
	words := strings.Repeat("word ", 5+(i*37)%90)
	if i%11 == 5 {
		words = strings.Repeat("long ", 900)
	}
	return fmt.Sprintf(`{"id": "d%d", "context": "%s", "url": "u%d"}`, i, words, i)
}

// lines joins records [from, to) with blank lines here and there.
func lines(from, to int) string {
	var b strings.Builder
	for i := from; i < to; i++ {
		b.WriteString(line(i) + "\n")
		if i%13 == 0 {
			b.WriteString("  \n")
		}
	}
	return b.String()
}

type pqDoc struct {
	ID      string `parquet:"id"`
	Context string `parquet:"context"`
	URL     string `parquet:"url"`
}

func pqDocs(from, to int) []pqDoc {
	var rows []pqDoc
	for i := from; i < to; i++ {
		rows = append(rows, pqDoc{ID: fmt.Sprintf("d%d", i), Context: strings.Repeat("word ", 5+(i*37)%90), URL: fmt.Sprintf("u%d", i)})
	}
	return rows
}

// mixed writes a corpus over five files of every format (an empty one
// too) in dir and returns them in order.
func mixed(t *testing.T, dir string) []string {
	t.Helper()
	paths := []string{
		filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl.gz"), filepath.Join(dir, "c.parquet"),
		filepath.Join(dir, "d.jsonl"), filepath.Join(dir, "e.jsonl.zst"), filepath.Join(dir, "f.jsonl"),
	}
	must(t, os.WriteFile(paths[0], []byte("\xEF\xBB\xBF"+lines(0, 120)), 0o644))
	must(t, corpus.WriteText(paths[1], []byte(lines(120, 200)), 4000))
	must(t, corpus.WriteParquet(paths[2], pqDocs(200, 330), 20))
	must(t, os.WriteFile(paths[3], nil, 0o644))
	must(t, corpus.WriteText(paths[4], []byte(lines(330, 400)), 0))
	must(t, os.WriteFile(paths[5], []byte(strings.TrimSuffix(lines(400, 450), "\n")), 0o644))
	return paths
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func options() record.Options {
	return record.Options{Questions: []string{"q?"}, Fields: record.Fields{Keep: []string{"url"}}, Schema: record.Schema{Keep: []record.Kind{record.String}}}
}

// readAll reads a source to its end.
func readAll(t *testing.T, s *Reader) []record.Document {
	t.Helper()
	var docs []record.Document
	for {
		d, err := s.Next()
		if errors.Is(err, io.EOF) {
			return docs
		}
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, d)
	}
}

// openRank plans and opens rank r of w over files.
func openRank(t *testing.T, files []File, r, w int, resume *readstate.State, seq int64) *Reader {
	t.Helper()
	plan, err := Split(append([]File(nil), files...), shard.Rank{Rank: r, World: w})
	if err != nil {
		t.Fatal(err)
	}
	s, err := plan.Open(options(), resume, seq)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// counting replaces openFile so a test sees every byte read from inputs.
func counting(t *testing.T) *atomic.Int64 {
	t.Helper()
	var n atomic.Int64
	saved := openFile
	openFile = func(path string) (handle, error) {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		return &countedFile{File: f, n: &n}, nil
	}
	t.Cleanup(func() { openFile = saved })
	return &n
}

type countedFile struct {
	*os.File
	n *atomic.Int64
}

func (c *countedFile) Read(p []byte) (int, error) {
	n, err := c.File.Read(p)
	c.n.Add(int64(n))
	return n, err
}

func (c *countedFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.File.ReadAt(p, off)
	c.n.Add(int64(n))
	return n, err
}

// fingerprintOf is the input component of a run's fingerprint over files,
// as the run computes it (Plan.Identity, fingerprint.Input).
func fingerprintOf(files []File, world int) string {
	ids, stdin := (&Plan{Files: files}).Identity()
	if stdin {
		return fingerprint.Stdin
	}
	return fingerprint.Input(ids, world > 1)
}
