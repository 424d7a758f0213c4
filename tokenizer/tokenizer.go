// Package tokenizer turns text into BERT WordPiece tokens exactly as Hugging
// Face tokenizers does for a tokenizer.json exported with a model, with
// token offsets in code points of the original text.
//
// What comes from github.com/sugarme/tokenizer and what is the project's own:
//
//   - sugarme: only tokenizer.Config and tokenizer.TokenConfig, its generic
//     mirror of the tokenizer.json layout, used to decode the file
//     (config.go). The tests also run sugarme's full pipeline on plain ASCII
//     English, where it is right, as a second opinion.
//   - own code: everything on the encode path. Validation of the file
//     (supported: WordPiece + BertNormalizer or none + BertPreTokenizer,
//     TemplateProcessing/BertProcessing for [CLS]/[SEP]); raw-text matching
//     of added tokens such as a literal "[CLS]"; BertNormalizer (clean_text,
//     CJK isolation, NFD accent stripping via golang.org/x/text/unicode/norm,
//     Rust's char::to_lowercase) precomputed per char for the BMP;
//     BertPreTokenizer; WordPiece longest-match-first; offset alignment back
//     to the original text. HF's character classes (control, punctuation,
//     Mn) come from older Unicode tables than Go's, so they are generated
//     from HF's behaviour on every code point (hftables.go, with the few
//     lowercase and NFD mappings that differ from Go's Unicode 15).
//     sugarme is not used there because it is wrong on
//     many inputs (precomposed accents kept since it does not decompose to
//     NFD, Unicode spaces kept, literal [CLS] not matched, byte/char offset
//     mix-ups, a nil dereference on "Ⱥ") and slow (about 132k tokens/s
//     against more than 1M here).
//
// Parity with Hugging Face is checked by golden files generated with the
// official tokenizers (npm tokenizers@0.23.2) under testdata/.
package tokenizer

import (
	"fmt"
	"os"
	"sort"
	"sync"
)

// Tokenizer is immutable after Load and safe for concurrent use.
type Tokenizer struct {
	wp         *wordPiece
	chars      *charTable
	added      []addedToken // longest first, so the first match is the longest
	addedFirst [256]bool    // first bytes of added tokens: the only places a match can start
	cls, sep   int32
	pad        int32
	vocabSize  int
	scratch    sync.Pool // *scratch, per-call buffers
}

// addedToken is a token matched verbatim in the raw text before any
// normalization (HF's normalized=false added tokens, e.g. "[CLS]").
type addedToken struct {
	text  string
	id    int32
	chars int32 // length in code points
}

// Load reads a Hugging Face tokenizer.json. Supported: WordPiece model with
// BertNormalizer (or none) and BertPreTokenizer, i.e. BERT/DistilBERT-style
// exports. Anything else is refused with one sentence naming what was found
// and what is supported.
func Load(path string) (*Tokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := parseConfig(raw)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	sort.SliceStable(t.added, func(i, j int) bool { return len(t.added[i].text) > len(t.added[j].text) })
	return t, nil
}

// SpecialIDs returns the ids of [CLS], [SEP] and [PAD] as the tokenizer.json
// defines them.
func (t *Tokenizer) SpecialIDs() (cls, sep, pad int32) { return t.cls, t.sep, t.pad }

// VocabSize is one more than the largest token id (vocab and added tokens).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// MaxInputCharsPerWord is the WordPiece limit above which a word is [UNK].
func (t *Tokenizer) MaxInputCharsPerWord() int { return t.wp.maxChars }
