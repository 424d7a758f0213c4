package tokenizer

import (
	"strings"
	"unicode/utf8"
)

// wordPiece is HF's WordPiece model: greedy longest-match-first over one
// pre-tokenized word. Continuation pieces live in their own map without the
// prefix, so a lookup never builds "##"+piece.
type wordPiece struct {
	initial, cont       map[string]int32
	maxInitial, maxCont int // longest key in bytes: no longer substring can match
	unk                 int32
	maxChars            int
}

func newWordPiece(vocab map[string]int32, prefix string, unk int32, maxChars int) *wordPiece {
	wp := &wordPiece{initial: vocab, cont: make(map[string]int32), unk: unk, maxChars: maxChars}
	for tok, id := range vocab {
		wp.maxInitial = max(wp.maxInitial, len(tok))
		if rest, ok := strings.CutPrefix(tok, prefix); ok && rest != "" {
			wp.cont[rest] = id
			wp.maxCont = max(wp.maxCont, len(rest))
		}
	}
	return wp
}

// piece is one WordPiece token: an id and a byte range of the word.
type piece struct {
	id         int32
	start, end int32
}

// tokenize appends the pieces of word (normalized, valid UTF-8, at most
// maxChars chars) to dst. When some suffix cannot be matched the whole word
// becomes one unk piece, as in HF.
func (wp *wordPiece) tokenize(word []byte, dst []piece) []piece {
	first := len(dst)
	for start := 0; start < len(word); {
		dict, limit := wp.initial, wp.maxInitial
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
				dst = append(dst, piece{id: id, start: int32(start), end: int32(end)})
				found = true
				break
			}
			end--
			for end > start && !utf8.RuneStart(word[end]) {
				end--
			}
		}
		if !found {
			return append(dst[:first], piece{id: wp.unk, start: 0, end: int32(len(word))})
		}
		start = end
	}
	return dst
}
