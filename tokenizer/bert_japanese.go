package tokenizer

import (
	"fmt"

	"qa-shard/tokenizer/internal/japanese"
	"qa-shard/tokenizer/internal/models"
)

// WordSplitter cuts a text into words: the byte ranges [start, end) of
// text that are words, in order and not overlapping; the bytes between
// them (spaces, as MeCab skips them) belong to no word. Package
// tokenizer/mecab's Tagger is one.
type WordSplitter = japanese.Splitter

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
	o := japanese.Options{Splitter: w.Splitter, NFKC: w.NFKC, Lowercase: w.Lowercase, Character: w.Character, NeverSplit: map[string]bool{}}
	for _, s := range w.NeverSplit {
		o.NeverSplit[s] = true
	}
	for _, a := range t.pipe.added.Raw {
		if a.Special {
			o.NeverSplit[a.Text] = true // all_special_tokens join never_split
		}
	}
	t.pipe.norm = japanese.Normalizer(o)
	t.pipe.pre = japanese.NewWords(o)
	if w.Character {
		t.pipe.model = japanese.CharModel{WordPiece: wp}
	}
	t.components = append(append([]string(nil), w.Components...), t.components[len(t.components)-1])
	return t, nil
}
