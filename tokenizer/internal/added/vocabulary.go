// Package added is tokenizers' added vocabulary: the added_tokens of
// tokenizer.json (Config as written, Token as read by Parse) and the
// Vocab that finds them in a text, raw or normalized, before the model
// sees it.
package added

import (
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// Token is one entry of tokenizer.json's added_tokens (tokenizers'
// AddedToken): matched as a whole in the text before the model sees it.
type Token struct {
	Text                       string
	ID                         int32
	Chars                      int32 // length in code points
	Special, Normalized        bool
	Lstrip, Rstrip, SingleWord bool
}

// Vocab is tokenizers' AddedVocabulary: tokens with normalized=false
// are found in the raw text, the others in the normalized text, each
// leftmost-longest (the aho-corasick MatchKind::LeftmostLongest HF uses).
// A normalized token is looked for as the normalizer writes it
// (refresh_added_tokens normalizes each pattern), so "[LOC]" under a
// lowercasing normalizer matches the text's "[LOC]", now "[loc]".
type Vocab struct {
	Raw, Norm []Token   // longest first
	RawFirst  [256]bool // first bytes of raw tokens: the only places a match can start
	normFirst [256]bool
}

func NewVocab(tokens []Token, norm stage.Normalizer) *Vocab {
	v := &Vocab{}
	for _, t := range tokens {
		if t.Normalized {
			if norm != nil {
				n := stage.NewNormalized(t.Text, 0)
				norm.Normalize(&n)
				t.Text = n.S
			}
			if t.Text == "" {
				continue // nothing to find: the normalizer removes all of it
			}
			v.Norm = append(v.Norm, t)
			v.normFirst[t.Text[0]] = true
		} else {
			v.Raw = append(v.Raw, t)
			v.RawFirst[t.Text[0]] = true
		}
	}
	longest := func(s []Token) {
		sort.SliceStable(s, func(i, j int) bool { return len(s[i].Text) > len(s[j].Text) })
	}
	longest(v.Raw)
	longest(v.Norm)
	return v
}

// Segment is one split of the text: an added token (tok set) or a piece
// for the normalizer and model.
type Segment struct {
	N   stage.Normalized
	Tok *Token
}

// SplitRaw cuts the original text at the raw added tokens. Its
// alignments are built in *buf (grown when too small), which the
// segments share.
func (v *Vocab) SplitRaw(text string, buf *[]tokens.Span) []Segment {
	n := stage.NewNormalizedIn(text, 0, *buf)
	*buf = n.Align
	return v.split(n, v.Raw, &v.RawFirst, nil)
}

// SplitNormalized cuts one normalized piece at the normalized added tokens.
func (v *Vocab) SplitNormalized(n stage.Normalized) []Segment {
	return v.split(n, v.Norm, &v.normFirst, nil)
}

// split is AddedVocabulary::find_matches and split_with_indices: empty
// pieces are dropped.
func (v *Vocab) split(n stage.Normalized, toks []Token, first *[256]bool, dst []Segment) []Segment {
	s := n.S
	if len(toks) == 0 {
		return append(dst, Segment{N: n})
	}
	done := 0 // start_offset: the end of the last match kept
	for i := 0; i < len(s); {
		t := v.match(s[i:], toks, first)
		if t == nil {
			i++
			continue
		}
		start, stop := i, i+len(t.Text)
		i = stop // find_iter goes on after the match, kept or not
		if t.SingleWord && (start > 0 && endsWithWord(s[:start]) || stop < len(s) && startsWithWord(s[stop:])) {
			continue
		}
		if t.Lstrip {
			start = max(len(strings.TrimRightFunc(s[:start], chars.IsWhitespace)), done)
		}
		if t.Rstrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], chars.IsWhitespace))
			i = stop
		}
		if done < start {
			dst = append(dst, Segment{N: n.Slice(done, start)})
		}
		dst = append(dst, Segment{N: n.Slice(start, stop), Tok: t})
		done = stop
	}
	if done < len(s) {
		dst = append(dst, Segment{N: n.Slice(done, len(s))})
	}
	return dst
}

// match returns the longest token that s starts with.
func (v *Vocab) match(s string, toks []Token, first *[256]bool) *Token {
	if !first[s[0]] {
		return nil
	}
	for i := range toks {
		if strings.HasPrefix(s, toks[i].Text) {
			return &toks[i]
		}
	}
	return nil
}

// isWordChar is what single_word treats as part of a word
// (ends_with_word/starts_with_word: alphanumeric or '_').
func isWordChar(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) }

func endsWithWord(s string) bool {
	r, _ := utf8.DecodeLastRuneInString(s)
	return isWordChar(r)
}

func startsWithWord(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return isWordChar(r)
}

// Config is an entry of tokenizer.json's added_tokens as written.
type Config struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// Parse reads the added tokens, each with the id
// AddedVocabulary::add_tokens gives it: a token the model's vocabulary
// already holds keeps the vocabulary's id, whatever the file says.
func Parse(tokens []Config, model stage.Model) ([]Token, error) {
	var out []Token
	for _, a := range tokens {
		if a.Content == "" {
			return nil, fmt.Errorf("added token %d is empty", a.ID)
		}
		if a.ID < 0 || a.ID > 1<<31-1 {
			return nil, fmt.Errorf("added token %q has id %d", a.Content, a.ID)
		}
		if id, ok := model.TokenToID(a.Content); ok {
			a.ID = int64(id)
		}
		out = append(out, Token{
			Text: a.Content, ID: int32(a.ID), Chars: int32(len([]rune(a.Content))),
			Special: a.Special, Normalized: a.Normalized, Lstrip: a.Lstrip, Rstrip: a.Rstrip, SingleWord: a.SingleWord,
		})
	}
	return out, nil
}
