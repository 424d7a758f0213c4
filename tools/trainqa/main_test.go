package main

import (
	"strings"
	"testing"

	"qa-shard/internal/testing/testfixtures"
	"qa-shard/qa"
	"qa-shard/tokenizer"
)

// TestLabel: the windows are qa-shard's, and each is labelled with the
// positions of the answer's first and last token, or [CLS] when the answer
// is cut or absent.
func TestLabel(t *testing.T) {
	path, err := testfixtures.TokenizerJSON(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := tokenizer.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Repeat("The small market expanded the old harbor near Dublin. ", 12) +
		"Its headquarters moved to Valparaíso in 1966. " + strings.Repeat("The quiet team rebuilt the new bridge. ", 6)
	start := strings.Index(text, "Valparaíso") // ASCII before it: bytes are code points
	g := gold{ID: "d", Question: "Where is the headquarters?", Start: start, End: start + len([]rune("Valparaíso"))}
	ctx := tok.Encode(text)
	for i, o := range ctx.Offsets {
		if int(o.Start) == g.Start {
			g.Token = i
		}
	}
	s := qa.DefaultSettings()
	s.MaxSeqLen, s.DocStride = 48, 16
	q := tok.Encode(g.Question)
	ls, err := label(q, ctx, g, tok.Template(), s)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := qa.Windows(q, ctx, tok.Template(), s)
	if len(ls) != len(want) || len(ls) < 4 {
		t.Fatalf("%d windows, qa.Windows cuts %d (want several)", len(ls), len(want))
	}
	positives := 0
	for i, l := range ls {
		if l.win.From != want[i].From || l.win.To != want[i].To {
			t.Fatalf("window %d is [%d,%d), qa.Windows cuts [%d,%d)", i, l.win.From, l.win.To, want[i].From, want[i].To)
		}
		if l.start == 0 {
			if l.end != 0 {
				t.Errorf("window %d: start 0 but end %d", i, l.end)
			}
			continue
		}
		positives++
		cs := l.win.ContextStart
		first, last := ctx.Offsets[l.win.From+l.start-cs], ctx.Offsets[l.win.From+l.end-cs]
		if int(first.Start) != g.Start || int(last.End) != g.End || l.end < l.start {
			t.Errorf("window %d: label [%d,%d] covers code points [%d,%d), the answer is [%d,%d)",
				i, l.start, l.end, first.Start, last.End, g.Start, g.End)
		}
	}
	if positives == 0 {
		t.Fatal("no window holds the answer")
	}
	if g.End-g.Start >= 9 && ctx.Offsets[g.Token].End == int32(g.End) {
		t.Fatal("the answer should span several tokens for this test to mean something")
	}
}
