package tokenizer

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

// addedToken is one entry of tokenizer.json's added_tokens (tokenizers'
// AddedToken): matched as a whole in the text before the model sees it.
type addedToken struct {
	text                       string
	id                         int32
	chars                      int32 // length in code points
	special, normalized        bool
	lstrip, rstrip, singleWord bool
}

// addedVocab is tokenizers' AddedVocabulary: tokens with normalized=false
// are found in the raw text, the others in the normalized text, each
// leftmost-longest (the aho-corasick MatchKind::LeftmostLongest HF uses).
// A normalized token is looked for as the normalizer writes it
// (refresh_added_tokens normalizes each pattern), so "[LOC]" under a
// lowercasing normalizer matches the text's "[LOC]", now "[loc]".
type addedVocab struct {
	raw, norm []addedToken // longest first
	rawFirst  [256]bool    // first bytes of raw tokens: the only places a match can start
	normFirst [256]bool
}

func newAddedVocab(tokens []addedToken, norm stage.Normalizer) *addedVocab {
	v := &addedVocab{}
	for _, t := range tokens {
		if t.normalized {
			if norm != nil {
				n := stage.NewNormalized(t.text, 0)
				norm.Normalize(&n)
				t.text = n.S
			}
			if t.text == "" {
				continue // nothing to find: the normalizer removes all of it
			}
			v.norm = append(v.norm, t)
			v.normFirst[t.text[0]] = true
		} else {
			v.raw = append(v.raw, t)
			v.rawFirst[t.text[0]] = true
		}
	}
	longest := func(s []addedToken) {
		sort.SliceStable(s, func(i, j int) bool { return len(s[i].text) > len(s[j].text) })
	}
	longest(v.raw)
	longest(v.norm)
	return v
}

// segment is one split of the text: an added token (tok set) or a piece
// for the normalizer and model.
type segment struct {
	n   stage.Normalized
	tok *addedToken
}

// splitRaw cuts the original text at the raw added tokens. Its
// alignments are built in *buf (grown when too small), which the
// segments share.
func (v *addedVocab) splitRaw(text string, buf *[]tokens.Span) []segment {
	n := stage.NewNormalizedIn(text, 0, *buf)
	*buf = n.Align
	return v.split(n, v.raw, &v.rawFirst, nil)
}

// splitNormalized cuts one normalized piece at the normalized added tokens.
func (v *addedVocab) splitNormalized(n stage.Normalized) []segment {
	return v.split(n, v.norm, &v.normFirst, nil)
}

// split is AddedVocabulary::find_matches and split_with_indices: empty
// pieces are dropped.
func (v *addedVocab) split(n stage.Normalized, toks []addedToken, first *[256]bool, dst []segment) []segment {
	s := n.S
	if len(toks) == 0 {
		return append(dst, segment{n: n})
	}
	done := 0 // start_offset: the end of the last match kept
	for i := 0; i < len(s); {
		t := v.match(s[i:], toks, first)
		if t == nil {
			i++
			continue
		}
		start, stop := i, i+len(t.text)
		i = stop // find_iter goes on after the match, kept or not
		if t.singleWord && (start > 0 && endsWithWord(s[:start]) || stop < len(s) && startsWithWord(s[stop:])) {
			continue
		}
		if t.lstrip {
			start = max(len(strings.TrimRightFunc(s[:start], chars.IsWhitespace)), done)
		}
		if t.rstrip {
			stop = len(s) - len(strings.TrimLeftFunc(s[stop:], chars.IsWhitespace))
			i = stop
		}
		if done < start {
			dst = append(dst, segment{n: n.Slice(done, start)})
		}
		dst = append(dst, segment{n: n.Slice(start, stop), tok: t})
		done = stop
	}
	if done < len(s) {
		dst = append(dst, segment{n: n.Slice(done, len(s))})
	}
	return dst
}

// match returns the longest token that s starts with.
func (v *addedVocab) match(s string, toks []addedToken, first *[256]bool) *addedToken {
	if !first[s[0]] {
		return nil
	}
	for i := range toks {
		if strings.HasPrefix(s, toks[i].text) {
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

// addedTokenConfig is an entry of tokenizer.json's added_tokens as written.
type addedTokenConfig struct {
	ID         int64  `json:"id"`
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized bool   `json:"normalized"`
	Special    bool   `json:"special"`
}

// parseAdded reads the added tokens, each with the id
// AddedVocabulary::add_tokens gives it, and counts them into the
// tokenizer's vocabulary.
func (t *Tokenizer) parseAdded(tokens []addedTokenConfig) ([]addedToken, error) {
	var out []addedToken
	for _, a := range tokens {
		if a.Content == "" {
			return nil, fmt.Errorf("added token %d is empty", a.ID)
		}
		if a.ID < 0 || a.ID > 1<<31-1 {
			return nil, fmt.Errorf("added token %q has id %d", a.Content, a.ID)
		}
		if id, ok := t.model.TokenToID(a.Content); ok {
			// AddedVocabulary::add_tokens: a token the model's vocab
			// already holds keeps the vocab's id, whatever the file says.
			a.ID = int64(id)
		}
		out = append(out, addedToken{
			text: a.Content, id: int32(a.ID), chars: int32(len([]rune(a.Content))),
			special: a.Special, normalized: a.Normalized, lstrip: a.Lstrip, rstrip: a.Rstrip, singleWord: a.SingleWord,
		})
		t.addedByID[int32(a.ID)] = a.Content
		t.vocabSize = max(t.vocabSize, int(a.ID)+1)
	}
	return out, nil
}
