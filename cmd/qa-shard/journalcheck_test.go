package main

import (
	"encoding/json"
	"os"
	"testing"
)

// journalDone reads how many documents the journal vouches for.
func journalDone(path string) int64 {
	b, err := os.ReadFile(path + ".journal")
	if err != nil {
		return -1
	}
	var st struct{ Done int64 }
	if json.Unmarshal(b, &st) != nil {
		return -1
	}
	return st.Done
}

// journalBytes reads how many bytes of the output the journal vouches for.
func journalBytes(path string) int64 {
	b, err := os.ReadFile(path + ".journal")
	if err != nil {
		return -1
	}
	var st struct{ Bytes int64 }
	if json.Unmarshal(b, &st) != nil {
		return -1
	}
	return st.Bytes
}

// checkLogitsOnce: every (document, question, window) appears once, in
// order (files in the order they first appear, then position).
func checkLogitsOnce(t *testing.T, dir string, docs int) {
	t.Helper()
	rows, err := readLogitsDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ file, at, q, w int64 }
	files := map[string]int64{}
	prev := key{-1, -1, -1, -1}
	seen := map[[2]int64]bool{}
	for _, row := range rows {
		if _, ok := files[row.Pos.File]; !ok {
			files[row.Pos.File] = int64(len(files))
		}
		k := key{files[row.Pos.File], row.Pos.At, int64(row.QuestionIndex), int64(row.Window)}
		if less := k.file < prev.file || (k.file == prev.file && (k.at < prev.at || (k.at == prev.at && (k.q < prev.q || (k.q == prev.q && k.w <= prev.w))))); less {
			t.Fatalf("logits row %v after %v: duplicated or out of order", k, prev)
		}
		prev = k
		seen[[2]int64{k.file, k.at}] = true
	}
	if len(seen) != docs {
		t.Errorf("logits cover %d documents, want %d", len(seen), docs)
	}
}
