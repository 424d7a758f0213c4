package shard

import (
	"path/filepath"
	"testing"
)

func TestPath(t *testing.T) {
	r := Rank{Rank: 3, World: 16}
	for in, want := range map[string]string{
		"answers.jsonl": "answers.rank-00003-of-00016.jsonl",
		"out/logits":    "out/logits.rank-00003-of-00016",
		"out.d/answers": "out.d/answers.rank-00003-of-00016",
		"a.jsonl.gz":    "a.rank-00003-of-00016.jsonl.gz",
		"a.jsonl.zst":   "a.rank-00003-of-00016.jsonl.zst",
		"a.parquet":     "a.rank-00003-of-00016.parquet",
		"dir.gz/a":      "dir.gz/a.rank-00003-of-00016",
		"-":             "-",
	} {
		if got := Path(in, r); got != want {
			t.Errorf("Path(%q) = %q, want %q", in, got, want)
		}
		if got := Unpath(want, r); got != in {
			t.Errorf("Unpath(%q) = %q, want %q", want, got, in)
		}
	}
	if got := Path("answers.jsonl", Rank{World: 1}); got != "answers.jsonl" {
		t.Errorf("single process path changed: %q", got)
	}
}

func TestParse(t *testing.T) {
	for _, p := range []string{"answers.jsonl", "out/logits", "a.jsonl.gz", "a.parquet", "dir.gz/a"} {
		for _, r := range []Rank{{Rank: 0, World: 2}, {Rank: 15, World: 16}} {
			base, got, ok := Parse(Path(p, r))
			if !ok || base != p || got.Rank != r.Rank || got.World != r.World {
				t.Errorf("Parse(%q) = %q, %+v, %v", Path(p, r), base, got, ok)
			}
			if m, err := filepath.Match(Pattern(p), Path(p, r)); !m || err != nil {
				t.Errorf("Pattern(%q) = %q does not match %q", p, Pattern(p), Path(p, r))
			}
		}
		if _, _, ok := Parse(p); ok {
			t.Errorf("Parse(%q) found a rank", p)
		}
	}
	if _, _, ok := Parse("a.rank-00016-of-00016.jsonl"); ok {
		t.Error("rank 16 of 16 parsed")
	}
}
