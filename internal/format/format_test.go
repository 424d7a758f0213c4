package format

import (
	"strings"
	"testing"
)

// TestOf: every name maps to one format, case aside; anything that names
// no format is JSONL.
func TestOf(t *testing.T) {
	for _, tt := range []struct {
		path string
		want Format
	}{
		{"docs.jsonl", JSONL},
		{"docs.ndjson", JSONL},
		{"docs.txt", JSONL},
		{"docs", JSONL},
		{"-", JSONL},
		{"docs.jsonl.gz", Gzip},
		{"DOCS.JSONL.GZ", Gzip},
		{"docs.gz", Gzip},
		{"docs.jsonl.zst", Zstd},
		{"docs.jsonl.zstd", Zstd},
		{"docs.jsonl.ZsT", Zstd},
		{"docs.parquet", Parquet},
		{"dir/answers.Parquet", Parquet},
		{"answers.parquet.journal", JSONL},
		{"dir.gz/docs", JSONL},
	} {
		if got := Of(tt.path); got != tt.want {
			t.Errorf("Of(%q) = %s, want %s", tt.path, got, tt.want)
		}
	}
}

// TestSniff: the magic bytes of gzip, zstd and Parquet, and JSONL (not
// sure) for anything else, including too few bytes.
func TestSniff(t *testing.T) {
	for _, tt := range []struct {
		name string
		b    []byte
		want Format
		ok   bool
	}{
		{"gzip", []byte{0x1f, 0x8b, 8, 0}, Gzip, true},
		{"zstd", []byte{0x28, 0xb5, 0x2f, 0xfd, 0}, Zstd, true},
		{"parquet", []byte("PAR1xxxx"), Parquet, true},
		{"json", []byte(`{"id":1}`), JSONL, false},
		{"empty", nil, JSONL, false},
		{"short zstd", []byte{0x28, 0xb5, 0x2f}, JSONL, false},
		{"one gzip byte", []byte{0x1f}, JSONL, false},
	} {
		if got, ok := Sniff(tt.b); got != tt.want || ok != tt.ok {
			t.Errorf("%s: Sniff = %s, %v; want %s, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestIsInput: the names a folder of inputs contributes.
func TestIsInput(t *testing.T) {
	for _, tt := range []struct {
		name string
		want bool
	}{
		{"a.jsonl", true},
		{"a.ndjson", true},
		{"a.JSONL.GZ", true},
		{"a.jsonl.zst", true},
		{"a.ndjson.zstd", true},
		{"a.parquet", true},
		{"a.json", false},
		{"a.gz", false},
		{"a.jsonl.journal", false},
		{"a.parquet.gz", true},
		{"README", false},
	} {
		if got := IsInput(tt.name); got != tt.want {
			t.Errorf("IsInput(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestExt: the end of a name that says its format, two extensions for a
// compressed file.
func TestExt(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"answers.jsonl", ".jsonl"},
		{"answers.jsonl.gz", ".jsonl.gz"},
		{"answers.jsonl.zst", ".jsonl.zst"},
		{"answers.jsonl.zstd", ".jsonl.zstd"},
		{"answers.gz", ".gz"},
		{"answers.parquet", ".parquet"},
		{"logits", ""},
		{"out.d/logits", ""},
		{"out.d/answers.gz", ".gz"},
		{"answers.", ""},
	} {
		if got := Ext(tt.path); got != tt.want {
			t.Errorf("Ext(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestString(t *testing.T) {
	for f, want := range map[Format]string{JSONL: "JSONL", Gzip: "gzip JSONL", Zstd: "zstd JSONL", Parquet: "Parquet"} {
		if f.String() != want {
			t.Errorf("%d.String() = %q, want %q", f, f.String(), want)
		}
	}
}

// TestForOutput: an answers output's name says its format, or is refused
// with the accepted endings listed.
func TestForOutput(t *testing.T) {
	for _, tt := range []struct {
		name string
		want Format
	}{
		{"a.jsonl", JSONL}, {"dir/a.NDJSON", JSONL}, {"a.jsonl.gz", Gzip}, {"a.ndjson.gz", Gzip},
		{"a.jsonl.zst", Zstd}, {"a.jsonl.ZSTD", Zstd}, {"a.parquet", Parquet}, {"a.rank-00001-of-00002.jsonl.gz", Gzip},
	} {
		if got, err := ForOutput(tt.name); err != nil || got != tt.want {
			t.Errorf("ForOutput(%q) = %s, %v; want %s", tt.name, got, err, tt.want)
		}
	}
	for _, name := range []string{"a.jsonl.bz2", "a.jsonl.xz", "a.csv", "a.json", "answers", "a.gz", "a.parquet.gz", ".jsonl", "dir.jsonl/a.txt"} {
		_, err := ForOutput(name)
		if err == nil || !strings.Contains(err.Error(), ".jsonl, .ndjson, .jsonl.gz") || !strings.Contains(err.Error(), ".parquet") {
			t.Errorf("ForOutput(%q) = %v, want a refusal listing the accepted endings", name, err)
		}
	}
}

// TestIsSQuAD: SQuAD's layout (either member order, v1.1 or v2.0, no
// articles at all) is recognised from its start; JSON lines records and
// other JSON are not, even with a "data" member.
func TestIsSQuAD(t *testing.T) {
	for _, tt := range []struct {
		text string
		want bool
	}{
		{`{"version": "v2.0", "data": [{"title": "Normans", "paragraphs": [{"qas": [], "context": "x"}]}]}`, true},
		{`{"data": [{"paragraphs": [], "title": "t"}], "version": "1.1"}`, true},
		{" \n{\"version\":\"1.1\",\"data\":[]}", true},
		{`{"version": "v2.0", "data": [{"title": "truncated after the first ke`, true},
		{`{"id": "d1", "context": "text", "question": "q?"}` + "\n", false},
		{`{"data": [{"context": "x"}]}`, false},
		{`{"data": {"title": "t"}}`, false},
		{`{"version": "v2.0", "context": "x", "data": []}`, false},
		{`[{"title": "t"}]`, false},
		{`not json`, false},
		{``, false},
	} {
		if got := IsSQuAD(strings.NewReader(tt.text)); got != tt.want {
			t.Errorf("IsSQuAD(%q) = %v, want %v", tt.text, got, tt.want)
		}
	}
	for name, want := range map[string]bool{"dev-v2.0.json": true, "TRAIN.JSON": true, "docs.jsonl": false, "x.json.gz": false, "json": false} {
		if got := MaybeSQuAD(name); got != want {
			t.Errorf("MaybeSQuAD(%q) = %v, want %v", name, got, want)
		}
	}
}
