package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
)

// parquetDoc is a corpus record as a Parquet row.
type parquetDoc struct {
	ID       string  `parquet:"id"`
	Context  string  `parquet:"context"`
	Question *string `parquet:"question,optional"`
	URL      string  `parquet:"url"`
}

// corpusRecords reads a JSONL corpus back as generic records.
func corpusRecords(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		recs = append(recs, m)
	}
	return recs
}

// toParquet writes JSONL records as a Parquet file of rowsPerGroup-row
// groups, with a url column added; it returns the path.
func toParquet(t *testing.T, recs []map[string]any, name string, rowsPerGroup int) string {
	t.Helper()
	rows := make([]parquetDoc, len(recs))
	for i, m := range recs {
		rows[i] = parquetDoc{ID: m["id"].(string), Context: m["context"].(string), URL: "https://example.org/" + m["id"].(string)}
		if q, ok := m["question"].(string); ok {
			rows[i].Question = &q
		}
	}
	path := filepath.Join(t.TempDir(), name)
	if err := corpus.WriteParquet(path, rows, rowsPerGroup); err != nil {
		t.Fatal(err)
	}
	return path
}

// toText writes JSONL records (with the same url field) to a .jsonl,
// .jsonl.gz or .jsonl.zst file, in members or frames of about every bytes.
func toText(t *testing.T, recs []map[string]any, name string, every int) string {
	t.Helper()
	var b strings.Builder
	for _, m := range recs {
		if id, ok := m["id"].(string); ok {
			m["url"] = "https://example.org/" + id
		}
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), name)
	if err := corpus.WriteText(path, []byte(b.String()), every); err != nil {
		t.Fatal(err)
	}
	return path
}
