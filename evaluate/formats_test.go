package evaluate

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go"
)

// answerRow is a Parquet answers row as package output writes it: the
// answer is null for an error record.
type answerRow struct {
	ID       string  `parquet:"id"`
	Question string  `parquet:"question"`
	Answer   *string `parquet:"answer,optional"`
	Error    *string `parquet:"error,optional"`
}

type intIDRow struct {
	ID       int64   `parquet:"id"`
	Question string  `parquet:"question"`
	Answer   *string `parquet:"answer,optional"`
}

// TestReadAnswersFormats: the same records read the same from JSON lines,
// gzip and zstd (several members or frames, one per checkpoint, as qa-shard
// writes them), a Parquet folder of parts and one part; integer ids read
// as the JSON number's digits.
func TestReadAnswersFormats(t *testing.T) {
	dir := t.TempDir()
	lines := []string{
		`{"id":"doc-1","question":"Who?","answer":"Ada"}`,
		`{"id":"doc-2","question":"Who?","answer":"Grace"}`,
		`{"id":"doc-3","question":"Who?","error":"line 3: not JSON"}`,
		`{"id":7,"question":"Where?","answer":"Paris"}`,
	}
	plain := filepath.Join(dir, "a.jsonl")
	write(t, plain, []byte(strings.Join(lines, "\n")+"\n"))
	var gz, zs bytes.Buffer
	for _, chunk := range [][]string{lines[:2], lines[2:]} { // two checkpoints
		body := []byte(strings.Join(chunk, "\n") + "\n")
		g := gzip.NewWriter(&gz)
		if _, err := g.Write(body); err != nil {
			t.Fatal(err)
		}
		g.Close()
		z, _ := zstd.NewWriter(&zs)
		if _, err := z.Write(body); err != nil {
			t.Fatal(err)
		}
		z.Close()
	}
	write(t, filepath.Join(dir, "a.jsonl.gz"), gz.Bytes())
	write(t, filepath.Join(dir, "a.jsonl.zst"), zs.Bytes())
	folder := filepath.Join(dir, "a.parquet")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	ada, grace, paris, bad := "Ada", "Grace", "Paris", "line 3: not JSON"
	writeParquet(t, filepath.Join(folder, "part-00000.parquet"), []answerRow{{"doc-1", "Who?", &ada, nil}, {"doc-2", "Who?", &grace, nil}})
	writeParquet(t, filepath.Join(folder, "part-00001.parquet"), []answerRow{{"doc-3", "Who?", nil, &bad}})
	writeParquet(t, filepath.Join(folder, "part-00002.parquet"), []intIDRow{{7, "Where?", &paris}})

	want, err := ReadAnswers(plain)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != 4 || want[Key{"doc-3", "Who?"}] != (Prediction{Error: true}) || want[Key{"7", "Where?"}].Answer != "Paris" {
		t.Fatalf("JSON lines read as %v", want)
	}
	for _, name := range []string{"a.jsonl.gz", "a.jsonl.zst", "a.parquet"} {
		got, err := ReadAnswers(filepath.Join(dir, name))
		if err != nil || !maps.Equal(got, want) {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
	one, err := ReadAnswers(filepath.Join(folder, "part-00000.parquet"))
	if err != nil || len(one) != 2 || one[Key{"doc-2", "Who?"}].Answer != "Grace" {
		t.Errorf("one part: %v, %v", one, err)
	}
}

// TestReadAnswersRefusals: what cannot be an answers output says why.
func TestReadAnswersRefusals(t *testing.T) {
	dir := t.TempDir()
	write(t, filepath.Join(dir, "bad.jsonl.gz"), []byte("not gzip"))
	noParts := filepath.Join(dir, "empty.parquet")
	if err := os.Mkdir(noParts, 0o755); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(dir, "docs.parquet")
	writeParquet(t, docs, []struct {
		ID      string `parquet:"id"`
		Context string `parquet:"context"`
	}{{"d", "text"}})
	ada := "Ada"
	dup := filepath.Join(dir, "dup.parquet")
	writeParquet(t, dup, []answerRow{{"d", "Who?", &ada, nil}, {"d", "Who?", &ada, nil}})
	for path, says := range map[string]string{
		filepath.Join(dir, "bad.jsonl.gz"): "gzip",
		noParts:                            "without part-*.parquet",
		docs:                               `no "question" column`,
		dup:                                "a second answer",
		filepath.Join(dir, "none.parquet"): "no such file",
	} {
		if _, err := ReadAnswers(path); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("%s: %v; want an error saying %q", filepath.Base(path), err, says)
		}
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func writeParquet[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
