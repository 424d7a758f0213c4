// Package japanese is how transformers' slow BertJapaneseTokenizer cuts
// a text, as stages of the general pipeline: the normalizer of its
// options (Normalizer), the words of a word splitter (MeCab) or of
// BasicTokenizer cut into subwords (Words, a pre-tokenizer the pipeline
// walks word by word), and CharacterTokenizer's model (CharModel).
// Package tokenizer's Words and FromJSONWords are its public face.
package japanese

import (
	"fmt"
	"sync"
	"unicode"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/models"
	"qa-shard/tokenizer/internal/normalizers"
	"qa-shard/tokenizer/internal/pretokenizers"
	"qa-shard/tokenizer/internal/stage"
)

// Splitter cuts a text into words: the byte ranges [start, end) of text
// that are words, in order and not overlapping; the bytes between them
// (spaces, as MeCab skips them) belong to no word. Package
// tokenizer/mecab's Tagger is one.
type Splitter interface {
	Split(text string, dst [][2]int) ([][2]int, error)
}

// Options are the word and subword tokenizers of one model
// (tokenizer.Words): NeverSplit holds the words never lowercased again,
// the special added tokens among them.
type Options struct {
	Splitter   Splitter
	NFKC       bool
	Lowercase  bool
	NeverSplit map[string]bool
	Character  bool
}

// Normalizer is what o does to the text between added tokens before it
// is cut into words (steps 1 and 2 of tokenizer.Words), or nil for
// nothing.
func Normalizer(o Options) stage.Normalizer {
	var norm normalizers.Sequence
	if o.Lowercase {
		norm = append(norm, normalizers.Lowercase{})
	}
	if o.Splitter != nil {
		if o.NFKC {
			norm = append(norm, normalizers.NFKCWords{})
		}
	} else {
		norm = append(norm, normalizers.Bert{Config: normalizers.BertConfig{CleanText: true}}, normalizers.UnicodeForm{Compose: true, Whole: true})
		if o.Lowercase {
			norm = append(norm, normalizers.Lowercase{}, normalizers.UnicodeForm{}, stripMn{})
		}
	}
	if len(norm) == 0 {
		return nil
	}
	return norm
}

// Words is steps 2 and 3 of Options up to the subword model, a
// pre-tokenizer: the words, each lowercased again, then cut at whitespace
// for WordPiece or NFKC-normalized for the character model.
type Words struct {
	splitter  Splitter // nil: BasicTokenizer's split
	lower     bool
	never     map[string]bool
	character bool
}

// NewWords is the pre-tokenizer of o.
func NewWords(o Options) *Words {
	return &Words{splitter: o.Splitter, lower: o.Lowercase, never: o.NeverSplit, character: o.Character}
}

// Split is stage.PreTokenizer's.
func (s *Words) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	s.EachWord(n, func(w stage.Normalized) { dst = append(dst, w) })
	return dst
}

// EachWord is Split handing each word to f as it is cut, for the
// pipeline: a long Japanese text has a word every few bytes, and no list
// of them all is kept.
func (s *Words) EachWord(n stage.Normalized, f func(w stage.Normalized)) {
	if s.splitter == nil {
		for _, w := range (pretokenizers.Bert{}).Split(n, nil) {
			s.subwords(w, f)
		}
		return
	}
	buf := spanBuffers.Get().(*[][2]int)
	defer spanBuffers.Put(buf)
	spans, err := s.splitter.Split(n.S, (*buf)[:0])
	if err != nil {
		// MeCab fails only when it cannot allocate its lattice: no
		// answer can be right without its words.
		panic(fmt.Sprintf("tokenizer: the word splitter failed: %v", err))
	}
	*buf = spans
	for _, sp := range spans {
		w := n.Slice(sp[0], sp[1])
		if s.lower && !s.never[w.S] {
			normalizers.Lowercase{}.Normalize(&w)
		}
		s.subwords(w, f)
	}
}

// spanBuffers hold the word ranges of one text while its words are cut
// (no pointers: a pooled one keeps nothing alive).
var spanBuffers = sync.Pool{New: func() any { return new([][2]int) }}

// subwords is step 3 up to the model for one word: NFKC for the
// character model, else the parts between whitespace.
func (s *Words) subwords(w stage.Normalized, f func(w stage.Normalized)) {
	if s.character {
		normalizers.NFKCWords{}.Normalize(&w)
		f(w)
		return
	}
	start := 0
	for i, r := range w.S {
		if !isPySpace(r) {
			continue
		}
		if start < i {
			f(w.Slice(start, i))
		}
		start = i + max(utf8.RuneLen(r), 1)
	}
	if start < len(w.S) {
		f(w.Slice(start, len(w.S)))
	}
}

// isPySpace is Python's str.isspace, which str.split cuts at: Go's
// unicode.IsSpace and the four information separators U+001C..U+001F.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// stripMn drops the chars of General_Category Mn, as BasicTokenizer's
// _run_strip_accents does after NFD.
type stripMn struct{}

func (stripMn) Normalize(n *stage.Normalized) {
	n.MapRunes(func(r rune, dst []rune) []rune {
		if unicode.Is(unicode.Mn, r) {
			return dst
		}
		return append(dst, r)
	})
}

// CharModel is CharacterTokenizer over a vocabulary: every char is a
// token, [UNK] when the vocabulary lacks it.
type CharModel struct{ *models.WordPiece }

// Tokenize is stage.Model's.
func (c CharModel) Tokenize(word string, dst []stage.Piece) []stage.Piece {
	for i, r := range word {
		size := utf8.RuneLen(r)
		if size < 0 {
			size = 1
		}
		id, ok := c.Initial[word[i:i+size]]
		if !ok {
			id = c.Unk
		}
		dst = append(dst, stage.Piece{ID: id, Start: int32(i), End: int32(i + size)})
	}
	return dst
}
