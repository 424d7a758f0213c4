package tokenizer

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

// WordSplitter cuts a text into words: the byte ranges [start, end) of
// text that are words, in order and not overlapping; the bytes between
// them (spaces, as MeCab skips them) belong to no word. Package
// tokenizer/mecab's Tagger is one.
type WordSplitter interface {
	Split(text string, dst [][2]int) ([][2]int, error)
}

// Words configures a tokenizer as transformers' slow BertJapaneseTokenizer
// runs it, on top of the vocabulary, added tokens and pair template of a
// tokenizer.json (FromJSONWords): every added token is cut out of the raw
// text first, then each piece between them is
//
//  1. lowercased char by char when Lowercase is set (the do_lower_case pass
//     of PreTrainedTokenizer.tokenize, which spares the special tokens);
//  2. with a Splitter (word_tokenizer_type mecab): NFKC-normalized when
//     NFKC is set, cut into the Splitter's words, and each word not in
//     NeverSplit lowercased again (MecabTokenizer.tokenize); without one
//     (basic): BasicTokenizer without Chinese-char isolation — control
//     chars dropped, NFC, whitespace and punctuation splits, and with
//     Lowercase, lowercase and accents stripped;
//  3. cut into subwords: WordPiece over each word's whitespace-separated
//     parts (WordpieceTokenizer), or with Character every char of the
//     word's NFKC form looked up alone, [UNK] when the vocabulary lacks it
//     (CharacterTokenizer).
//
// Every token keeps the code-point range of the original text its bytes
// came from, through NFKC and lowercasing, as the other families do.
type Words struct {
	Splitter   WordSplitter
	NFKC       bool
	Lowercase  bool
	NeverSplit []string
	Character  bool
	// Components describe the word and subword tokenizers for people
	// (Tokenizer.Components), in pipeline order.
	Components []string
}

// FromJSONWords is FromJSON for a tokenizer whose words Words splits: raw
// gives the vocabulary (a WordPiece model), the added tokens (all matched
// in the raw text) and the post-processor; its normalizer and
// pre-tokenizer must be null.
func FromJSONWords(raw []byte, dir, name string, w Words) (*Tokenizer, error) {
	t, err := FromJSON(raw, dir, name)
	if err != nil {
		return nil, err
	}
	wp, ok := t.model.(*models.WordPiece)
	if !ok || t.pipe.norm != nil || t.pipe.pre != nil || len(t.pipe.added.Norm) > 0 {
		return nil, fmt.Errorf("load tokenizer %s: a word-split tokenizer needs a WordPiece model, no normalizer or pre-tokenizer, and raw added tokens", name)
	}
	t.fast = nil // the general pipeline, with the stages below
	var norm normalizers.Sequence
	if w.Lowercase {
		norm = append(norm, normalizers.Lowercase{})
	}
	ws := &wordStage{character: w.Character, lower: w.Lowercase, splitter: w.Splitter, never: map[string]bool{}}
	for _, s := range w.NeverSplit {
		ws.never[s] = true
	}
	for _, a := range t.pipe.added.Raw {
		if a.Special {
			ws.never[a.Text] = true // all_special_tokens join never_split
		}
	}
	if w.Splitter != nil {
		if w.NFKC {
			norm = append(norm, normalizers.NFKCWords{})
		}
	} else {
		norm = append(norm, normalizers.Bert{Config: normalizers.BertConfig{CleanText: true}}, normalizers.UnicodeForm{Compose: true, Whole: true})
		if w.Lowercase {
			norm = append(norm, normalizers.Lowercase{}, normalizers.UnicodeForm{}, stripMn{})
		}
	}
	if len(norm) > 0 {
		t.pipe.norm = norm
	}
	t.pipe.pre = ws
	if w.Character {
		t.pipe.model = charModel{wp}
	}
	t.components = append(append([]string(nil), w.Components...), t.components[len(t.components)-1])
	return t, nil
}

// wordStage is steps 2 and 3 of Words up to the subword model: the words,
// each lowercased again, then cut at whitespace for WordPiece or
// NFKC-normalized for the character model.
type wordStage struct {
	splitter  WordSplitter // nil: BasicTokenizer's split
	lower     bool
	never     map[string]bool
	character bool
}

func (s *wordStage) Split(n stage.Normalized, dst []stage.Normalized) []stage.Normalized {
	s.eachWord(n, func(w stage.Normalized) { dst = append(dst, w) })
	return dst
}

// eachWord is split handing each word to f as it is cut, for the
// pipeline: a long Japanese text has a word every few bytes, and no list
// of them all is kept.
func (s *wordStage) eachWord(n stage.Normalized, f func(w stage.Normalized)) {
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
func (s *wordStage) subwords(w stage.Normalized, f func(w stage.Normalized)) {
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

// charModel is CharacterTokenizer over a vocabulary: every char is a
// token, [UNK] when the vocabulary lacks it.
type charModel struct{ *models.WordPiece }

func (c charModel) Tokenize(word string, dst []stage.Piece) []stage.Piece {
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
