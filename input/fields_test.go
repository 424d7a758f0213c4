package input

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"qa-shard/internal/corpus"
	"qa-shard/internal/record"
	"qa-shard/shard"
)

// TestPrepareRefusesFieldsNoRecordHas: a field named by --keep-fields,
// --context-field or --id-field that none of the first records has (a
// typo) is refused before the run, naming the flag, the field and the
// fields the records have; one that only some of the first records have
// is accepted, as are absent ids under the default name (positional ids).
// Parquet is checked against its columns.
func TestPrepareRefusesFieldsNoRecordHas(t *testing.T) {
	dir := t.TempDir()
	jsonl := filepath.Join(dir, "docs.jsonl")
	must(t, os.WriteFile(jsonl, []byte(lines(0, 40)), 0o644))
	sparse := filepath.Join(dir, "sparse.jsonl")
	must(t, os.WriteFile(sparse, []byte(lines(0, 30)+`{"id": "x", "context": "c", "lang": "en"}`+"\n"+lines(30, 60)), 0o644))
	noIDs := filepath.Join(dir, "noids.jsonl")
	must(t, os.WriteFile(noIDs, []byte(`{"context": "c"}`+"\n"), 0o644))
	pq := filepath.Join(dir, "docs.parquet")
	must(t, corpus.WriteParquet(pq, pqDocs(0, 20), 10))
	for _, tc := range []struct {
		name   string
		input  string
		fields record.Fields
		want   []string // nil: accepted
	}{
		{"kept field misspelt", jsonl, record.Fields{Keep: []string{"url", "ulr"}}, []string{"--keep-fields ulr", "none of the first 40 records of docs.jsonl", "id, context, url"}},
		{"kept field present", jsonl, record.Fields{Keep: []string{"url", "URL"}}, nil},
		{"kept field in one record", sparse, record.Fields{Keep: []string{"lang"}}, nil},
		{"kept field in the second file only", jsonl + "," + sparse, record.Fields{Keep: []string{"lang"}}, nil},
		{"kept field in no file", jsonl + "," + sparse, record.Fields{Keep: []string{"lnag"}}, []string{"neither the first records of docs.jsonl nor those of the 1 input files after it have"}},
		{"context field misspelt", jsonl, record.Fields{Context: "contxt"}, []string{"--context-field contxt", `"contxt"`}},
		{"default context absent", noIDs, record.Fields{Context: "text"}, []string{"the first record of noids.jsonl does not have", "(noids.jsonl has: context)"}},
		{"id field misspelt", jsonl, record.Fields{ID: "docid"}, []string{"--id-field docid", "leave --id-field out"}},
		{"no ids under the default name", noIDs, record.Fields{}, nil},
		{"parquet kept column missing", pq, record.Fields{Keep: []string{"lang"}}, []string{"--keep-fields lang", "docs.parquet has no column", "id, context, url"}},
		{"parquet id column missing", pq, record.Fields{ID: "docid"}, []string{"--id-field docid"}},
		{"parquet kept column present", pq, record.Fields{Keep: []string{"url"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Prepare(strings.Split(tc.input, ","), shard.Rank{World: 1}, record.Options{Fields: tc.fields, Questions: []string{"Who?"}}, "auto")
			if tc.want == nil {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInput) {
				t.Fatalf("err = %v, want ErrInput", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("err = %v\nwant it to say %q", err, w)
				}
			}
		})
	}
}
