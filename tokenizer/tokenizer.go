// Package tokenizer reads a Hugging Face tokenizer.json as written,
// component by component, and encodes text exactly as Hugging Face
// tokenizers (the Rust library) does: token ids, code-point offsets into
// the original text, and word ids, plus the pair template its
// post-processor frames a (question, context) pair with.
//
// This package is the public face: Tokenizer (Load, FromJSON, Encode),
// the general pipeline that runs the stages in tokenizers' order
// (pipeline.go) and the special tokens (special_tokens.go). The parts are
// packages of tokenizer/internal/, one concept each, named after the part
// of tokenizers' Rust sources they reproduce:
//
//   - stage: NormalizedString (tokenizer/normalizer.rs: the text with, for
//     every byte, the original code points it came from) and its split,
//     and the interfaces of the stages (tokenizer/mod.rs);
//   - normalizers, pretokenizers, models (WordPiece, BPE, Unigram) and
//     processors: the components of each kind, a file per Rust module,
//     with the kind's Sequence and Parse;
//   - added: the added vocabulary (tokenizer/added_vocabulary.rs);
//   - hfconfig: tokenizer.json's top level and the files beside it;
//     hfjson: how a component's JSON is read (strictly: a component or
//     option outside this set is refused with ErrUnsupported, never
//     approximated);
//   - chars: HF's character classes and Unicode tables, generated from
//     HF's behaviour on every code point (see generate.go), and grapheme
//     clusters; onig: Oniguruma patterns on Go's regexp;
//   - bertfast: BERT's fused single-pass encoder (BertNormalizer,
//     BertPreTokenizer, WordPiece), several times faster than the general
//     pipeline, both checked against the same golden files;
//   - japanese: transformers' BertJapaneseTokenizer, which cuts words with
//     a word splitter such as MeCab (Words and FromJSONWords here).
//
// The decoder is not read, since answers are cut from the context by
// offsets. Parity with Hugging Face is checked by golden files generated
// with the official tokenizers (npm tokenizers@0.23.2) under testdata/.
package tokenizer

import (
	"fmt"
	"os"
	"path/filepath"

	"qa-shard/tokenizer/internal/added"
	"qa-shard/tokenizer/internal/bertfast"
	"qa-shard/tokenizer/internal/hfconfig"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/models"
	"qa-shard/tokenizer/internal/normalizers"
	"qa-shard/tokenizer/internal/pretokenizers"
	"qa-shard/tokenizer/internal/processors"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// ErrUnsupported marks a tokenizer.json that uses a component or an option
// this package does not reproduce exactly; it is refused, never
// approximated.
var ErrUnsupported = hfjson.ErrUnsupported

// Tokenizer is immutable after Load and safe for concurrent use.
type Tokenizer struct {
	// fast is the BERT fast path, when the file is exactly BERT's layout
	// (nil otherwise: the general pipeline encodes).
	fast *bertfast.Encoder

	pipe      *pipeline // the general pipeline
	model     stage.Model
	addedByID map[int32]string
	post      processors.PostProcessor
	tpl       tokens.Template
	pad       int32
	vocabSize int
	spaces    [][2]int32 // per model id, when offsets are trimmed

	components []string // for people: see Components
}

// Load reads a Hugging Face tokenizer.json and, when they lie beside it,
// tokenizer_config.json and special_tokens_map.json (cls and pad tokens,
// padding side), as transformers' tokenizer does.
func Load(path string) (*Tokenizer, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := parse(raw)
	if err == nil {
		err = t.readSideConfigs(filepath.Dir(path))
	}
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", path, err)
	}
	return t, nil
}

// FromJSON reads a tokenizer.json held in memory, as written by a
// conversion (tokenizer/modeldir), with the tokenizer_config.json and
// special_tokens_map.json of dir read as Load reads them; name is what
// errors call the JSON.
func FromJSON(raw []byte, dir, name string) (*Tokenizer, error) {
	t, err := parse(raw)
	if err == nil {
		err = t.readSideConfigs(dir)
	}
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", name, err)
	}
	return t, nil
}

func parse(raw []byte) (*Tokenizer, error) {
	cfg, err := hfconfig.Read(raw)
	if err != nil {
		return nil, err
	}
	m, err := models.Parse(cfg.Model)
	if err != nil {
		return nil, err
	}
	norm, err := normalizers.Parse(cfg.Normalizer)
	if err != nil {
		return nil, err
	}
	pre, err := pretokenizers.Parse(cfg.PreTokenizer)
	if err != nil {
		return nil, err
	}
	t := &Tokenizer{model: m, vocabSize: m.Size(), addedByID: map[int32]string{}, components: hfconfig.Describe(cfg, m)}
	if t.post, err = processors.Parse(cfg.PostProcessor); err != nil {
		return nil, err
	}
	t.tpl = t.post.Template
	if !t.post.Specials {
		// No post-processor: each sequence keeps its own type id.
		t.tpl.ContextType, t.tpl.LaterContextType = 1, 1
	}
	t.tpl.CLS, t.tpl.HasCLS = t.post.CLS, t.post.HasCLS
	if !t.tpl.HasCLS && len(t.tpl.Before) == 1 {
		// A template without tokenizer_config.json beside it: the token
		// that opens the pair is the cls token in every family qa-shard
		// knows; tokenizer_config.json's cls_token overrides it.
		t.tpl.CLS, t.tpl.HasCLS = t.tpl.Before[0], true
	}
	addedTokens, err := added.Parse(cfg.AddedTokens, m)
	if err != nil {
		return nil, err
	}
	for _, a := range addedTokens { // counted into the tokenizer's vocabulary
		t.addedByID[a.ID] = a.Text
		t.vocabSize = max(t.vocabSize, int(a.ID)+1)
	}
	if err := t.setPadding(cfg.Padding); err != nil {
		return nil, err
	}
	if err := t.checkSpecials(); err != nil {
		return nil, err
	}
	if t.post.Trim {
		t.countSpaces()
	}
	vocab := added.NewVocab(addedTokens, norm)
	t.pipe = &pipeline{norm: norm, pre: pre, model: m, added: vocab}
	if !t.post.Trim { // offsets trimmed of spaces are the general pipeline's
		t.fast = bertfast.New(norm, pre, m, vocab)
	}
	return t, nil
}

// Encode tokenizes one text without special tokens. Offsets are code-point
// [start, end) ranges of text; Words holds each token's pre-tokenizer word
// index (an added token such as a literal "[CLS]" is a word of its own).
//
// Invalid UTF-8 never panics: each invalid byte counts as one code point.
// Hugging Face cannot take such input at all; callers reject it first.
func (t *Tokenizer) Encode(text string) tokens.Tokens {
	if t.fast != nil {
		return t.fast.Encode(text, nil)
	}
	if !t.post.Trim {
		return t.pipe.encode(text, nil)
	}
	matched := map[int]string{}
	out := t.pipe.encode(text, matched)
	t.post.TrimOffsets(&out, func(i int, id int32) (int32, int32) {
		if s, ok := matched[i]; ok {
			return processors.SpaceRun(s, false), processors.SpaceRun(s, true)
		}
		if int(id) < len(t.spaces) {
			return int32(t.spaces[id][0]), int32(t.spaces[id][1])
		}
		return 0, 0
	})
	return out
}

// countSpaces fills spaces: the leading and trailing spaces ("Ġ" or
// whitespace) of every vocabulary entry, which offset trimming removes,
// counted once rather than per token.
func (t *Tokenizer) countSpaces() {
	t.spaces = make([][2]int32, t.model.Size())
	for id := range t.spaces {
		if s, ok := t.model.IDToToken(int32(id)); ok {
			t.spaces[id] = [2]int32{processors.SpaceRun(s, false), processors.SpaceRun(s, true)}
		}
	}
}

// tokenID is token_to_id: added tokens first, then the model's vocab.
func (t *Tokenizer) tokenID(tok string) (int32, bool) {
	for id, s := range t.addedByID {
		if s == tok {
			return id, true
		}
	}
	return t.model.TokenToID(tok)
}

// Template is the frame the post-processor puts around a (question,
// context) pair, with the cls token whose positions stay unmasked.
func (t *Tokenizer) Template() tokens.Template { return t.tpl }

// PadID is the id batches are padded with (masked out by the attention
// mask, so any id works; the tokenizer's own when it names one).
func (t *Tokenizer) PadID() int32 { return t.pad }

// VocabSize is one more than the largest token id (vocab and added tokens).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// MaxInputCharsPerWord is the WordPiece limit above which a word is [UNK]
// (0 for other models).
func (t *Tokenizer) MaxInputCharsPerWord() int {
	if wp, ok := t.model.(*models.WordPiece); ok {
		return wp.MaxChars
	}
	return 0
}

// checkSpecials refuses a post-processor whose special tokens the
// vocabulary does not hold: the model would be fed ids it never learned.
func (t *Tokenizer) checkSpecials() error {
	for _, ids := range [][]int32{t.tpl.Before, t.tpl.Between, t.tpl.After} {
		for _, id := range ids {
			if _, ok := t.addedByID[id]; ok {
				continue
			}
			if _, ok := t.model.IDToToken(id); !ok {
				return fmt.Errorf("the post_processor's special token id %d is neither an added token nor in the model's vocabulary", id)
			}
		}
	}
	return nil
}
