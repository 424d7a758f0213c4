package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"

	"qa-shard/internal/corpus"
	"qa-shard/shard"
)

// mixedInput splits a corpus of n documents into a .jsonl.zst (several
// frames), a .parquet (several row groups), a .jsonl.gz (several members)
// and a .jsonl file, in that order, every tenth JSONL record without an
// id; it returns the --input flags.
func mixedInput(t *testing.T, n int) []string {
	t.Helper()
	recs := corpusRecords(t, writeCorpus(t, n, 31))
	q := n / 4
	for i := range recs {
		if i%10 == 9 && (i < q || i >= 2*q) {
			delete(recs[i], "id")
		}
	}
	a := toText(t, recs[:q], "part-a.jsonl.zst", 8<<10)
	b := toParquet(t, recs[q:2*q], "part-b.parquet", 16)
	c := toText(t, recs[2*q:3*q], "part-c.jsonl.gz", 8<<10)
	d := toText(t, recs[3*q:], "part-d.jsonl", 0)
	return []string{"--input", a, "--input", b, "--input", c, "--input", d}
}

// answerText is an answers file's JSONL text, decompressed.
func answerText(t *testing.T, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	switch {
	case strings.HasSuffix(path, ".gz"):
		z, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = z
	case strings.HasSuffix(path, ".zst"):
		z, err := zstd.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		defer z.Close()
		r = z
	}
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return b
}

// answerRecords reads answers of any format as JSON-normalized records,
// nulls dropped (a Parquet row has every column, a JSONL line its own).
func answerRecords(t *testing.T, path string) []string {
	t.Helper()
	var raw []map[string]any
	if strings.HasSuffix(path, ".parquet") {
		rows, err := corpus.ReadParquet(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			for k, v := range r {
				if l, ok := v.([]any); v == nil || (ok && len(l) == 0) {
					delete(r, k)
				}
			}
			raw = append(raw, r)
		}
	} else {
		for _, line := range strings.Split(strings.TrimSuffix(string(answerText(t, path)), "\n"), "\n") {
			var m map[string]any
			if err := json.Unmarshal([]byte(line), &m); err != nil {
				t.Fatalf("%s: %v: %s", path, err, line)
			}
			for k, v := range m {
				if v == nil {
					delete(m, k)
				}
			}
			raw = append(raw, m)
		}
	}
	out := make([]string, len(raw))
	for i, m := range raw {
		b, _ := json.Marshal(m) // sorted keys; numbers through float64 either way
		var g any
		must(t, json.Unmarshal(b, &g))
		b, _ = json.Marshal(g)
		out[i] = string(b)
	}
	return out
}

// rankFiles names the outputs of world ranks.
func rankFiles(out string, world int) []string {
	var files []string
	for r := range world {
		files = append(files, shard.Path(out, shard.Rank{Rank: r, World: world}))
	}
	return files
}

// TestMixedInputsRanksMerged: a run over a .jsonl.zst, a .parquet, a
// .jsonl.gz and a .jsonl file, split among 3 or 5 ranks (which share the files by bytes:
// whole compressed files, row groups, lines) and merged, writes what one
// process writes: byte for byte for JSONL (compressed: its text), row for
// row for Parquet; kept fields and default ids included.
func TestMixedInputsRanksMerged(t *testing.T) {
	in := mixedInput(t, 90)
	args := append([]string{"--model", model(t, "tiny"), "--question", "Who founded it?", "--devices", "sim:2", "--keep-fields", "url"}, in...)
	for _, name := range []string{"answers.jsonl", "answers.jsonl.gz", "answers.parquet"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			single := filepath.Join(dir, "single-"+name)
			if code, stderr := runCLI(t, append([]string{"--output", single}, args...)...); code != exitOK {
				t.Fatalf("single exit %d:\n%s", code, stderr)
			}
			want := answerRecords(t, single)
			if len(want) != 90+18 { // 90 documents, every fifth with its own question too
				t.Fatalf("%d records", len(want))
			}
			joined := strings.Join(want, "\n")
			for _, must := range []string{`"url":"https://example.org/d050"`, `"id":"part-a.jsonl.zst:`, `"id":"part-c.jsonl.gz:`, `"id":"part-d.jsonl:`} {
				if !strings.Contains(joined, must) {
					t.Errorf("the single run's records lack %s", must)
				}
			}
			for _, world := range []int{3, 5} {
				out := filepath.Join(dir, fmt.Sprint(world), name)
				must(t, os.MkdirAll(filepath.Dir(out), 0o755))
				for r := range world {
					a := append([]string{"--rank", fmt.Sprint(r), "--world-size", fmt.Sprint(world), "--output", out}, args...)
					if code, stderr := runCLI(t, a...); code != exitOK {
						t.Fatalf("rank %d of %d exit %d:\n%s", r, world, code, stderr)
					}
				}
				merged := filepath.Join(dir, fmt.Sprint(world), "merged-"+name)
				margs := append([]string{"merge", "--output", merged}, rankFiles(out, world)...)
				if code, _, stderr := capture(t, func() int { return dispatch(margs) }); code != exitOK {
					t.Fatalf("merge of %d exit %d:\n%s", world, code, stderr)
				}
				if got := answerRecords(t, merged); strings.Join(got, "\n") != joined {
					t.Fatalf("%d ranks merged: %d records differ from the single process's %d", world, len(got), len(want))
				}
				if !strings.HasSuffix(name, ".parquet") && !bytes.Equal(answerText(t, merged), answerText(t, single)) {
					t.Fatalf("%d ranks merged: the text differs from the single process's", world)
				}
			}
		})
	}
}
