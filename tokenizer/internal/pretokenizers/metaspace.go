package pretokenizers

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// prependScheme is Metaspace's PrependScheme: when the replacement char
// goes before a piece.
type prependScheme uint8

const (
	prependAlways prependScheme = iota // every piece that does not start with it
	prependFirst                       // only the piece that starts the original text
	prependNever
)

// metaspace is tokenizers' Metaspace pre-tokenizer: every ' ' becomes the
// replacement char (▁), the replacement is prepended as the scheme says,
// and with split the piece is cut before every replacement char
// (SplitDelimiterBehavior::MergedWithNext).
type metaspace struct {
	rep    string // the replacement char
	scheme prependScheme
	cut    bool
	slabs  sync.Pool // *[]tokens.Span: room the prepended pieces' alignments are cut from
	texts  sync.Pool // *[]byte: room the prepended pieces' texts are cut from
}

// parseMetaspace reads Metaspace as tokenizers' deserializer does:
// prepend_scheme defaults to "always"; the legacy add_prefix_space=false is
// only accepted with prepend_scheme "never" (tokenizers refuses it
// otherwise, even with prepend_scheme absent), add_prefix_space=true is
// ignored; split defaults to true; str_rep is read and ignored.
func parseMetaspace(raw json.RawMessage) (stage.PreTokenizer, error) {
	var c struct {
		Type           string  `json:"type"`
		Replacement    *string `json:"replacement"`
		AddPrefixSpace *bool   `json:"add_prefix_space"`
		PrependScheme  *string `json:"prepend_scheme"`
		Split          *bool   `json:"split"`
		StrRep         *string `json:"str_rep"`
	}
	if err := hfjson.Strict(raw, &c, "Metaspace pre_tokenizer"); err != nil {
		return nil, err
	}
	if c.Replacement == nil {
		return nil, fmt.Errorf("Metaspace pre_tokenizer: replacement is required")
	}
	if utf8.RuneCountInString(*c.Replacement) != 1 {
		return nil, fmt.Errorf("Metaspace pre_tokenizer: replacement %q is not a single char", *c.Replacement)
	}
	m := &metaspace{rep: *c.Replacement, cut: c.Split == nil || *c.Split}
	if c.PrependScheme != nil {
		switch *c.PrependScheme {
		case "always":
			m.scheme = prependAlways
		case "first":
			m.scheme = prependFirst
		case "never":
			m.scheme = prependNever
		default:
			return nil, fmt.Errorf("Metaspace pre_tokenizer: prepend_scheme %q is not one of always, first, never", *c.PrependScheme)
		}
	}
	if c.AddPrefixSpace != nil && !*c.AddPrefixSpace {
		if m.scheme != prependNever {
			return nil, fmt.Errorf("Metaspace pre_tokenizer: add_prefix_space does not match declared prepend_scheme")
		}
	}
	return m, nil
}

// Split is Metaspace::pre_tokenize on one piece.
func (m *metaspace) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	if n.S == "" {
		return dst
	}
	// NormalizedString::replace(' ', "▁"): each ▁ takes the alignment of
	// the space it replaces.
	if strings.IndexByte(n.S, ' ') >= 0 {
		n = metaReplaceSpaces(n, m.rep)
	}
	prepend := false
	if !strings.HasPrefix(n.S, m.rep) {
		switch m.scheme {
		case prependAlways:
			prepend = true
		case prependFirst:
			// offsets_original().0 == 0: HF's piece starts where its first
			// normalized char came from (every piece is a slice).
			prepend = n.Align[0].Start == 0
		}
	}
	if prepend {
		// NormalizedString::prepend: the text replaces the first char and
		// that char is inserted again after it, so every byte added takes
		// the first char's alignment.
		align := m.spans(len(m.rep) + len(n.Align))
		for range len(m.rep) {
			align = append(align, n.Align[0])
		}
		n = stage.Normalized{S: m.concat(m.rep, n.S), Align: append(align, n.Align...), Base: n.Base}
	}
	if !m.cut {
		return append(dst, n)
	}
	// split(▁, MergedWithNext): every ▁ but one at the very start begins
	// a new piece.
	last, i := 0, 0
	if strings.HasPrefix(n.S, m.rep) {
		i = len(m.rep)
	}
	for i < len(n.S) {
		k := strings.Index(n.S[i:], m.rep)
		if k < 0 {
			break
		}
		dst = append(dst, n.Slice(last, i+k))
		last = i + k
		i = last + len(m.rep)
	}
	return append(dst, n.Slice(last, len(n.S)))
}

// spans is an empty slice with room for k spans, cut from a shared slab
// so that a text's many words do not each allocate their own; a slab is
// never written again once cut, and lives as long as a piece uses it.
func (m *metaspace) spans(k int) []tokens.Span {
	if k > 256 {
		return make([]tokens.Span, 0, k)
	}
	p, _ := m.slabs.Get().(*[]tokens.Span)
	if p == nil || cap(*p)-len(*p) < k {
		s := make([]tokens.Span, 0, 4096)
		p = &s
	}
	n := len(*p)
	out := (*p)[n : n : n+k]
	*p = (*p)[: n+k : cap(*p)]
	m.slabs.Put(p)
	return out
}

// concat is a + b in a string cut from a shared slab, like spans: a
// slab's bytes are never written again once a string points at them, so
// the strings stay immutable; a text's many words then cost no allocation
// of their own.
func (m *metaspace) concat(a, b string) string {
	k := len(a) + len(b)
	if k > 256 {
		return a + b
	}
	p, _ := m.texts.Get().(*[]byte)
	if p == nil || cap(*p)-len(*p) < k {
		s := make([]byte, 0, 16384)
		p = &s
	}
	start := len(*p)
	*p = append(append(*p, a...), b...)
	out := unsafe.String(&(*p)[start], k)
	m.texts.Put(p)
	return out
}

// metaReplaceSpaces replaces every ' ' of n by rep, every byte of rep aligned
// to the space.
func metaReplaceSpaces(n stage.Normalized, rep string) stage.Normalized {
	var b strings.Builder
	b.Grow(len(n.S) + 2*strings.Count(n.S, " "))
	align := make([]tokens.Span, 0, b.Cap())
	last := 0
	for i := 0; i < len(n.S); i++ {
		if n.S[i] != ' ' {
			continue
		}
		b.WriteString(n.S[last:i])
		align = append(align, n.Align[last:i]...)
		b.WriteString(rep)
		for range len(rep) {
			align = append(align, n.Align[i])
		}
		last = i + 1
	}
	b.WriteString(n.S[last:])
	align = append(align, n.Align[last:]...)
	return stage.Normalized{S: b.String(), Align: align, Base: n.Base}
}
