// Package processors reads tokenizer.json's post_processor (tokenizers'
// processors/: BertProcessing, RobertaProcessing, ByteLevel,
// TemplateProcessing and their Sequence) into what it does to a
// (question, context) pair: the pair's template of special tokens
// (template.go) and whether token offsets are trimmed of spaces.
package processors

import (
	"encoding/json"
	"fmt"
	"unicode"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/tokens"
)

// PostProcessor is what tokenizer.json's post_processor does to a
// (question, context) pair: the special tokens of its pair template, and
// whether token offsets are trimmed of the spaces ByteLevel keeps in tokens.
type PostProcessor struct {
	Template tokens.Template
	Specials bool // a processor that adds special tokens was found
	// ByteLevel's process_offsets: Trim leading and trailing spaces ("Ġ"
	// or whitespace) of every token from its offsets; with PrefixSpace an
	// encoding's first token keeps a single leading space.
	Trim, PrefixSpace bool
	// CLS is the CLS token a BertProcessing or RobertaProcessing names.
	CLS    int32
	HasCLS bool
}

func Parse(raw json.RawMessage) (PostProcessor, error) {
	var pp PostProcessor
	if hfjson.IsNull(raw) {
		return pp, nil
	}
	return pp, pp.add(raw)
}

func (pp *PostProcessor) add(raw json.RawMessage) error {
	typ, err := hfjson.TypeOf(raw)
	if err != nil {
		return fmt.Errorf("post_processor: %w", err)
	}
	if pp.Specials && typ != "Sequence" {
		return hfjson.Unsupported("post_processor", typ+" after a processor that adds special tokens", supportedPostProcessors)
	}
	switch typ {
	case "BertProcessing":
		var c struct {
			Type string         `json:"type"`
			Sep  specialTokenID `json:"sep"`
			CLS  specialTokenID `json:"cls"`
		}
		if err := hfjson.Strict(raw, &c, "BertProcessing"); err != nil {
			return err
		}
		pp.Template = tokens.BertTemplate(c.CLS.id, c.Sep.id)
		pp.Specials, pp.CLS, pp.HasCLS = true, c.CLS.id, true
	case "RobertaProcessing":
		var c struct {
			Type           string         `json:"type"`
			Sep            specialTokenID `json:"sep"`
			CLS            specialTokenID `json:"cls"`
			TrimOffsets    *bool          `json:"trim_offsets"`
			AddPrefixSpace *bool          `json:"add_prefix_space"`
		}
		if err := hfjson.Strict(raw, &c, "RobertaProcessing"); err != nil {
			return err
		}
		pp.Template = tokens.Template{
			Before: []int32{c.CLS.id}, Between: []int32{c.Sep.id, c.Sep.id}, After: []int32{c.Sep.id},
			BeforeTypes: []int32{0}, BetweenTypes: []int32{0, 0}, AfterTypes: []int32{0},
		}
		pp.Specials, pp.CLS, pp.HasCLS = true, c.CLS.id, true
		pp.Trim, pp.PrefixSpace = hfjson.OrTrue(c.TrimOffsets), hfjson.OrTrue(c.AddPrefixSpace)
	case "TemplateProcessing":
		tpl, err := parseTemplate(raw)
		if err != nil {
			return err
		}
		pp.Template, pp.Specials = tpl, true
	case "ByteLevel":
		var c struct {
			Type           string `json:"type"`
			AddPrefixSpace *bool  `json:"add_prefix_space"`
			TrimOffsets    *bool  `json:"trim_offsets"`
			UseRegex       *bool  `json:"use_regex"`
		}
		if err := hfjson.Strict(raw, &c, "ByteLevel post_processor"); err != nil {
			return err
		}
		if hfjson.OrTrue(c.TrimOffsets) {
			pp.Trim, pp.PrefixSpace = true, hfjson.OrTrue(c.AddPrefixSpace)
		}
	case "Sequence":
		members, err := hfjson.SequenceMembers(raw, "processors", "Sequence post_processor")
		if err != nil {
			return err
		}
		for _, p := range members {
			if err := pp.add(p); err != nil {
				return err
			}
		}
	default:
		return hfjson.Unsupported("post_processor", typ, supportedPostProcessors)
	}
	return nil
}

const supportedPostProcessors = "BertProcessing, RobertaProcessing, TemplateProcessing, ByteLevel and a Sequence of ByteLevel followed by one of the others"

// specialTokenID is a post-processor's ["token", id] pair.
type specialTokenID struct {
	tok string
	id  int32
}

func (s *specialTokenID) UnmarshalJSON(b []byte) error {
	var pair []any
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("want [token, id]: %w", err)
	}
	tok, ok1 := pair[0].(string)
	id, ok2 := pair[1].(float64)
	if len(pair) != 2 || !ok1 || !ok2 || id < 0 || id != float64(int32(id)) {
		return fmt.Errorf("want [token, id], got %s", b)
	}
	s.tok, s.id = tok, int32(id)
	return nil
}

// TrimOffsets applies ByteLevel's process_offsets to one encoded text, as
// tokenizers applies it to an encoding whose first token is the text's
// first; spaces gives the leading and trailing spaces of token i's string
// (tokenizers' Token.value: the vocab entry, or what an added token
// matched). With add_prefix_space the first token
// of an encoding keeps a single leading space, so it also fills
// FirstOffsets: each token's offsets as the first token of a window.
func (pp PostProcessor) TrimOffsets(out *tokens.Tokens, spaces func(i int, id int32) (lead, trail int32)) {
	if !pp.Trim {
		return
	}
	if pp.PrefixSpace {
		out.FirstOffsets = make([]tokens.Span, len(out.IDs))
	}
	for i, id := range out.IDs {
		lead, trail := spaces(i, id)
		off := out.Offsets[i]
		if out.FirstOffsets != nil {
			out.FirstOffsets[i] = trimSpan(off, lead, trail, true)
		}
		out.Offsets[i] = trimSpan(off, lead, trail, pp.PrefixSpace && (i == 0 || off.Start == 0))
	}
}

// trimSpan is process_offsets for one token; keepOne is "is the first
// token and add_prefix_space": a single leading space stays.
func trimSpan(off tokens.Span, lead, trail int32, keepOne bool) tokens.Span {
	if keepOne && lead == 1 {
		lead = 0
	}
	if lead > 0 {
		off.Start = min(off.Start+lead, off.End)
	}
	if trail > 0 && off.End >= trail {
		off.End = max(off.End-trail, off.Start)
	}
	return off
}

// SpaceRun counts the chars at the start (or end) of s that are "Ġ" or
// whitespace.
func SpaceRun(s string, fromEnd bool) int32 {
	rs := []rune(s)
	n := int32(0)
	for k := range rs {
		r := rs[k]
		if fromEnd {
			r = rs[len(rs)-1-k]
		}
		if r != 'Ġ' && !unicode.Is(unicode.White_Space, r) {
			break
		}
		n++
	}
	return n
}
