package qa

import (
	"strings"
	"testing"
)

var testSpecial = BertTemplate(101, 102)

// toks tokenizes a test spec: words split on spaces, '|' splits a word into
// subword tokens. It returns the text without '|' and its tokens, with ids
// 1000+i, code-point offsets and word indices like a BERT fast tokenizer.
func toks(spec string) (string, Tokens) {
	var t Tokens
	var text strings.Builder
	pos, word := int32(0), int32(-1)
	for wi, w := range strings.Split(spec, " ") {
		if wi > 0 {
			text.WriteByte(' ')
			pos++
		}
		if w == "" {
			continue
		}
		word++
		for _, piece := range strings.Split(w, "|") {
			n := int32(len([]rune(piece)))
			t.IDs = append(t.IDs, int32(1000+len(t.IDs)))
			t.Offsets = append(t.Offsets, Span{Start: pos, End: pos + n})
			t.Words = append(t.Words, word)
			text.WriteString(piece)
			pos += n
		}
	}
	return text.String(), t
}

// window builds the single window of a (question, context) pair.
func window(t *testing.T, q, ctx Tokens, s Settings) Window {
	t.Helper()
	ws, err := Windows(q, ctx, testSpecial, s)
	if err != nil {
		t.Fatalf("Windows: %v", err)
	}
	if len(ws) != 1 {
		t.Fatalf("got %d windows, want 1", len(ws))
	}
	return ws[0]
}

// logits returns start and end logits for w: base everywhere, then the
// given values at context token indices (not window positions).
func logits(w Window, base float32, start, end map[int]float32) ([]float32, []float32) {
	s := make([]float32, w.Len())
	e := make([]float32, w.Len())
	for i := range s {
		s[i], e[i] = base, base
	}
	for c, v := range start {
		s[w.ContextStart+c-w.From] = v
	}
	for c, v := range end {
		e[w.ContextStart+c-w.From] = v
	}
	return s, e
}

func settings(mut func(*Settings)) Settings {
	s := DefaultSettings()
	if mut != nil {
		mut(&s)
	}
	return s
}

// robertaTemplate is <s> A </s></s> B </s>, with one type id throughout.
var robertaTemplate = Template{
	Before: []int32{0}, Between: []int32{2, 2}, After: []int32{2},
	BeforeTypes: []int32{0}, BetweenTypes: []int32{0, 0}, AfterTypes: []int32{0},
	CLS: 0, HasCLS: true,
}
