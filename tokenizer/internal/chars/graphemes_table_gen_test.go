//go:build gcbgen

package chars

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestGenerateGCB writes graphemes_table.go from the grapheme_cat_table of
// the crate unicode-segmentation (src/tables.rs of the version tokenizers
// links, 1.13.x):
//
//	QA_SHARD_GCB_TABLES=.../unicode-segmentation/src/tables.rs \
//	  go test -tags gcbgen ./tokenizer -run TestGenerateGCB
func TestGenerateGCB(t *testing.T) {
	path := os.Getenv("QA_SHARD_GCB_TABLES")
	if path == "" {
		t.Fatal("set QA_SHARD_GCB_TABLES to unicode-segmentation's src/tables.rs")
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "const grapheme_cat_table")
	j := strings.Index(s[i:], "];")
	body := s[i : i+j]
	re := regexp.MustCompile(`\('\\u\{([0-9a-f]+)\}',\s*'\\u\{([0-9a-f]+)\}',\s*GC_(\w+)\)`)
	type rg struct {
		lo, hi int64
		cat    string
	}
	var rs []rg
	for _, m := range re.FindAllStringSubmatch(body, -1) {
		lo, _ := strconv.ParseInt(m[1], 16, 32)
		hi, _ := strconv.ParseInt(m[2], 16, 32)
		cat := m[3]
		switch cat {
		case "LV", "LVT", "InCB_Consonant":
			continue // computed / treated as Any
		case "CR", "LF":
			continue // ASCII, handled directly
		}
		if lo < 0x80 {
			if cat != "Control" {
				t.Fatalf("ASCII range %s", m[0])
			}
			if hi < 0x80 {
				continue
			}
			lo = 0x80
		}
		if n := len(rs); n > 0 && rs[n-1].cat == cat && rs[n-1].hi+1 == lo {
			rs[n-1].hi = hi
			continue
		}
		rs = append(rs, rg{lo, hi, cat})
	}
	names := map[string]string{"Control": "gcControl", "Extend": "gcExtend", "Extended_Pictographic": "gcPict", "L": "gcL", "V": "gcV", "T": "gcT", "Prepend": "gcPrepend", "Regional_Indicator": "gcRI", "SpacingMark": "gcSpacingMark", "ZWJ": "gcZWJ"}
	var b strings.Builder
	b.WriteString(`package chars

// Code generated from unicode-segmentation 1.13's grapheme_cat_table
// (Unicode 17.0.0), the crate tokenizers 0.23.2 segments graphemes with.
// DO NOT EDIT.
//
// Grapheme_Cluster_Break of every code point from U+0080 that is not Other
// (ASCII is in graphemeCat; Hangul LV and LVT syllables are computed;
// InCB=Consonant, which only rule GB9c reads, counts as Other: see
// graphemes.go), merged into ranges.

var gcbRanges = [...]gcbRange{
`)
	line := "\t"
	for _, r := range rs {
		e := fmt.Sprintf("{0x%X, 0x%X, %s},", r.lo, r.hi, names[r.cat])
		if len(line)+len(e)+1 > 96 {
			b.WriteString(strings.TrimRight(line, " ") + "\n")
			line = "\t"
		}
		line += e + " "
	}
	b.WriteString(strings.TrimRight(line, " ") + "\n}\n")
	if err := os.WriteFile("graphemes_table.go", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d ranges", len(rs))
}
