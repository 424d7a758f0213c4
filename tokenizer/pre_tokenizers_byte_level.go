package tokenizer

import (
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
	"unsafe"

	"qa-shard/qa"
)

// byteLevel is tokenizers' ByteLevel pre-tokenizer: with add_prefix_space
// a piece that does not start with a space gets one, with use_regex it is
// cut at GPT-2's pattern (behavior Isolated), then every byte of every
// split becomes one char of GPT-2's byte alphabet. trim_offsets only
// matters to the post-processor (postprocess.go), not here.
type byteLevel struct {
	prefixSpace, useRegex bool
	classes               *[0x10000]uint8
}

func parseByteLevel(raw json.RawMessage) (preTokenizer, error) {
	var c struct {
		Type           string `json:"type"`
		AddPrefixSpace *bool  `json:"add_prefix_space"`
		TrimOffsets    *bool  `json:"trim_offsets"`
		UseRegex       *bool  `json:"use_regex"`
	}
	if err := strict(raw, &c, "ByteLevel pre_tokenizer"); err != nil {
		return nil, err
	}
	// tokenizers requires both flags; only use_regex has a default (true).
	if c.AddPrefixSpace == nil || c.TrimOffsets == nil {
		return nil, fmt.Errorf("ByteLevel pre_tokenizer: add_prefix_space and trim_offsets are required")
	}
	return byteLevel{prefixSpace: *c.AddPrefixSpace, useRegex: orTrue(c.UseRegex), classes: bmpClasses()}, nil
}

func (b byteLevel) split(n normalized, dst []normalized) []normalized {
	if n.s == "" {
		return dst
	}
	if b.prefixSpace && n.s[0] != ' ' {
		n = prependSpace(n)
	}
	s := n.s
	// The whole piece is mapped once; the splits are slices of it, aligned
	// as HF aligns each split after its own transform.
	size := 0
	for i := 0; i < len(s); i++ {
		size += int(byteChars[s[i]].n)
	}
	out := make([]byte, size)
	align := make([]qa.Span, size)
	bounds := make([]int32, 0, len(s)/4+2)
	bounds = append(bounds, 0)
	w := 0
	for i := 0; i < len(s); {
		j := len(s)
		if b.useRegex {
			j = gpt2Match(s, i, b.classes)
		}
		w = mapBytes(s[i:j], n.align[i:j], out, align, w)
		bounds = append(bounds, int32(w))
		i = j
	}
	mapped := unsafe.String(unsafe.SliceData(out), len(out)) // out is never written again
	dst = slices.Grow(dst, len(bounds)-1)
	for k := 1; k < len(bounds); k++ {
		a, e := bounds[k-1], bounds[k]
		dst = append(dst, normalized{s: mapped[a:e], align: align[a:e:e], base: align[a].Start})
	}
	return dst
}

// mapBytes writes the byte-level chars of s (aligned by al) at w of out
// and align, which have room for them, and returns the new w. As
// NormalizedString::transform aligns them, the first char of each original
// char replaces it (its first byte's alignment) and the others are
// inserted after it (the alignment of its last byte).
func mapBytes(s string, al []qa.Span, out []byte, align []qa.Span, w int) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			m := &byteChars[c]
			out[w], align[w] = m.b[0], al[i]
			if m.n == 2 {
				out[w+1], align[w+1] = m.b[1], al[i]
			}
			w += int(m.n)
			i++
			continue
		}
		_, size := utf8.DecodeRuneInString(s[i:])
		a := al[i]
		for k := i; k < i+size; k++ {
			m := &byteChars[s[k]]
			for j := range m.n {
				out[w], align[w] = m.b[j], a
				w++
			}
			a = al[i+size-1]
		}
		i += size
	}
	return w
}

// prependSpace is NormalizedString::prepend(" "): the space replaces the
// first char (taking its first byte's alignment) and the char is inserted
// back after it (taking its last byte's).
func prependSpace(n normalized) normalized {
	_, size := utf8.DecodeRuneInString(n.s)
	align := make([]qa.Span, 0, len(n.align)+1)
	align = append(align, n.align[0])
	for range size {
		align = append(align, n.align[size-1])
	}
	align = append(align, n.align[size:]...)
	return normalized{s: " " + n.s, align: align, base: n.base}
}
