package models

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// WordPiece is HF's WordPiece model: greedy longest-match-first over one
// pre-tokenized word. Continuation pieces live in their own map without the
// prefix, so a lookup never builds "##"+piece.
type WordPiece struct {
	Initial, cont       map[string]int32
	tokens              []string // id -> token
	maxInitial, maxCont int      // longest key in bytes: no longer substring can match
	Unk                 int32
	MaxChars            int
}

func newWordPiece(vocab map[string]int32, prefix string, unk int32, maxChars int) *WordPiece {
	wp := &WordPiece{Initial: vocab, cont: make(map[string]int32), Unk: unk, MaxChars: maxChars}
	for tok, id := range vocab {
		for int(id) >= len(wp.tokens) {
			wp.tokens = append(wp.tokens, "")
		}
		wp.tokens[id] = tok
		wp.maxInitial = max(wp.maxInitial, len(tok))
		if rest, ok := strings.CutPrefix(tok, prefix); ok && rest != "" {
			wp.cont[rest] = id
			wp.maxCont = max(wp.maxCont, len(rest))
		}
	}
	return wp
}

// Tokenize is the model interface: a word of more than maxChars chars is
// one unk token, as in HF.
func (wp *WordPiece) Tokenize(word string, dst []stage.Piece) []stage.Piece {
	if utf8.RuneCountInString(word) > wp.MaxChars {
		return append(dst, stage.Piece{ID: wp.Unk, Start: 0, End: int32(len(word))})
	}
	return wp.TokenizeBytes([]byte(word), dst)
}

func (wp *WordPiece) TokenToID(tok string) (int32, bool) {
	id, ok := wp.Initial[tok]
	return id, ok
}

func (wp *WordPiece) IDToToken(id int32) (string, bool) {
	if id < 0 || int(id) >= len(wp.tokens) {
		return "", false
	}
	return wp.tokens[id], true
}

func (wp *WordPiece) Size() int { return len(wp.tokens) }

func (wp *WordPiece) Kind() string { return "WordPiece" }

// TokenizeBytes appends the pieces of word (normalized, valid UTF-8, at
// most maxChars chars) to dst. When some suffix cannot be matched the whole
// word becomes one unk piece, as in HF.
func (wp *WordPiece) TokenizeBytes(word []byte, dst []stage.Piece) []stage.Piece {
	first := len(dst)
	for start := 0; start < len(word); {
		dict, limit := wp.Initial, wp.maxInitial
		if start > 0 {
			dict, limit = wp.cont, wp.maxCont
		}
		end := len(word)
		if end-start > limit {
			end = start + limit
			// Back up to a char boundary; HF only ever tries whole chars.
			for end > start && !utf8.RuneStart(word[end]) {
				end--
			}
		}
		found := false
		for end > start {
			if id, ok := dict[string(word[start:end])]; ok {
				dst = append(dst, stage.Piece{ID: id, Start: int32(start), End: int32(end)})
				found = true
				break
			}
			end--
			for end > start && !utf8.RuneStart(word[end]) {
				end--
			}
		}
		if !found {
			return append(dst[:first], stage.Piece{ID: wp.Unk, Start: 0, End: int32(len(word))})
		}
		start = end
	}
	return dst
}

func parseWordPiece(raw json.RawMessage) (*WordPiece, error) {
	var c struct {
		Type     string           `json:"type"`
		UNK      string           `json:"unk_token"`
		Prefix   *string          `json:"continuing_subword_prefix"`
		MaxChars *float64         `json:"max_input_chars_per_word"`
		Vocab    map[string]int64 `json:"vocab"`
	}
	if err := hfjson.Strict(raw, &c, "WordPiece model"); err != nil {
		return nil, err
	}
	if len(c.Vocab) == 0 {
		return nil, fmt.Errorf("WordPiece model has no vocab")
	}
	vocab := make(map[string]int32, len(c.Vocab))
	for tok, id := range c.Vocab {
		if id < 0 || id > math.MaxInt32 {
			return nil, fmt.Errorf("WordPiece vocab entry %q has id %d, want a non-negative int32", tok, id)
		}
		vocab[tok] = int32(id)
	}
	prefix := "##"
	if c.Prefix != nil {
		prefix = *c.Prefix
	}
	maxChars := 100
	if c.MaxChars != nil && *c.MaxChars >= 1 {
		maxChars = int(min(*c.MaxChars, math.MaxInt32))
	}
	unk, ok := vocab[c.UNK]
	if !ok {
		return nil, fmt.Errorf("WordPiece unk_token %q is not in the vocab", c.UNK)
	}
	return newWordPiece(vocab, prefix, unk, maxChars), nil
}
