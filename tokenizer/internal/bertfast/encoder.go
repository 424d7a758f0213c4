// Package bertfast is the BERT tokenizer's own encoder. BERT's exact
// layout (BertNormalizer or none, BertPreTokenizer, WordPiece, plain raw
// added tokens) is encoded in one pass over the text that normalizes each
// char by table lookup (charTable, built from BertNormalizer's per-char
// rules: normalizers.BertConfig), cuts words as BertPreTokenizer does and
// runs WordPiece on each, several times faster than the general pipeline
// (package tokenizer's pipeline.go), which the golden tests run too.
package bertfast

import (
	"strings"
	"sync"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/added"
	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/models"
	"qa-shard/tokenizer/internal/normalizers"
	"qa-shard/tokenizer/internal/pretokenizers"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// Encoder is the fused encoder's state: the WordPiece model, the
// normalizer's table of chars, the raw added tokens, and per-call buffers.
type Encoder struct {
	wp         *models.WordPiece
	chars      *charTable
	added      []added.Token // raw added tokens, longest first
	addedFirst [256]bool     // first bytes of added tokens: the only places a match can start
	scratch    sync.Pool     // *scratch, per-call buffers
}

// New is the fused encoder of a general pipeline that is exactly
// BERT's (norm, pre, model and the added vocabulary v), or nil for any
// other.
func New(norm stage.Normalizer, pre stage.PreTokenizer, model stage.Model, v *added.Vocab) *Encoder {
	wp, ok := model.(*models.WordPiece)
	if !ok || !isBertLayout(norm, pre, v) {
		return nil
	}
	f := &Encoder{wp: wp, chars: newCharTable(normalizers.BertConfig{})}
	if bn, ok := norm.(normalizers.Bert); ok {
		f.chars = newCharTable(bn.Config)
	}
	f.added, f.addedFirst = v.Raw, v.RawFirst
	return f
}

// Normalizer is the BertNormalizer configuration whose table the encoder
// reads.
func (f *Encoder) Normalizer() normalizers.BertConfig { return f.chars.norm }

// isBertLayout says whether the fused BERT encoder reproduces the file.
func isBertLayout(norm stage.Normalizer, pre stage.PreTokenizer, v *added.Vocab) bool {
	if _, ok := pre.(pretokenizers.Bert); !ok {
		return false
	}
	if _, ok := norm.(normalizers.Bert); !ok && norm != nil {
		return false
	}
	if len(v.Norm) > 0 {
		return false
	}
	for _, a := range v.Raw {
		if a.Lstrip || a.Rstrip || a.SingleWord {
			return false
		}
	}
	return true
}

// Classes of a normalized char for BertPreTokenizer.
const (
	ClsWord  uint8 = iota
	ClsSpace       // split, removed
	ClsPunct       // split, isolated as a word of its own
)

// PreTokClass is the class of a normalized char for BertPreTokenizer.
func PreTokClass(r rune) uint8 {
	switch {
	case chars.IsWhitespace(r):
		return ClsSpace
	case chars.IsBertPunc(r):
		return ClsPunct
	}
	return ClsWord
}

// charEntry is the precomputed effect of one original char.
type charEntry struct {
	r   rune  // the normalized char when n == 1, else an index into charTable.multi
	n   uint8 // normalized chars: 0 when clean_text drops the char
	cls uint8 // PreTokClass of r when n == 1
	iso bool  // CJK ideograph: a word by itself
}

// charTable caches charEntry for the Basic Multilingual Plane, which holds
// nearly every char of real text; rarer chars are computed on the fly.
type charTable struct {
	norm  normalizers.BertConfig
	bmp   []charEntry
	multi []rune
}

func newCharTable(n normalizers.BertConfig) *charTable {
	t := &charTable{norm: n, bmp: make([]charEntry, 0x10000)}
	var scratch []rune
	for r := rune(0); r < 0x10000; r++ {
		var iso bool
		scratch, iso = n.Apply(r, scratch[:0])
		e := charEntry{n: uint8(len(scratch)), iso: iso}
		switch len(scratch) {
		case 0:
		case 1:
			e.r, e.cls = scratch[0], PreTokClass(scratch[0])
		default:
			e.r = rune(len(t.multi))
			t.multi = append(t.multi, scratch...)
		}
		t.bmp[r] = e
	}
	return t
}

// scratch holds the buffers of one Encode call, reused through a sync.Pool
// so that steady-state encoding allocates only the returned slices.
type scratch struct {
	word   []byte  // normalized UTF-8 of the current word
	orig   []int32 // original code-point index of every byte of word
	pieces []stage.Piece
	runes  []rune // normalized chars of one char outside the BMP
}

// encoder is the state of one Encode call: a single pass that normalizes,
// pre-tokenizes and runs WordPiece word by word.
type encoder struct {
	f    *Encoder
	s    *scratch
	out  tokens.Tokens
	word int32 // index of the next pre-tokenizer word

	words *[]string // nil outside tests

	chars               int   // normalized chars in the current word
	firstOrig, lastOrig int32 // original code points of its first and last char
}

// Encode is Encode on the BERT fast path; when words is not nil it also collects the normalized
// pre-tokenizer words, which tests compare with Hugging Face's.
func (f *Encoder) Encode(text string, words *[]string) tokens.Tokens {
	s, _ := f.scratch.Get().(*scratch)
	if s == nil {
		s = &scratch{}
	}
	defer f.scratch.Put(s)
	guess := len(text)/4 + 4
	e := encoder{f: f, s: s, words: words, out: tokens.Tokens{
		IDs:     make([]int32, 0, guess),
		Offsets: make([]tokens.Span, 0, guess),
		Words:   make([]int32, 0, guess),
	}}
	s.word, s.orig = s.word[:0], s.orig[:0]
	tbl := f.chars
	ci := int32(0) // code-point index of text[i]
	for i := 0; i < len(text); {
		b := text[i]
		if f.addedFirst[b] {
			if a := f.matchAdded(text[i:]); a != nil {
				e.flush()
				e.emit(a.ID, ci, ci+a.Chars)
				e.word++
				i += len(a.Text)
				ci += a.Chars
				continue
			}
		}
		if b < utf8.RuneSelf {
			// ASCII: never CJK, never more than one normalized char.
			if ent := tbl.bmp[b]; ent.n == 1 {
				e.push(ent.r, ent.cls, ci)
			}
			i++
			ci++
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		e.char(r, ci)
		i += size
		ci++
	}
	e.flush()
	return e.out
}

// char feeds the normalized form of one non-ASCII original char.
func (e *encoder) char(r rune, ci int32) {
	tbl := e.f.chars
	var norm []rune
	iso := false
	if r < 0x10000 {
		ent := tbl.bmp[r]
		switch {
		case ent.n == 0:
			return
		case ent.n == 1 && !ent.iso:
			e.push(ent.r, ent.cls, ci)
			return
		case ent.n == 1:
			e.flush()
			e.push(ent.r, ent.cls, ci)
			e.flush()
			return
		default:
			norm = tbl.multi[ent.r : ent.r+rune(ent.n)]
		}
		iso = ent.iso
	} else {
		e.s.runes, iso = tbl.norm.Apply(r, e.s.runes[:0])
		norm = e.s.runes
	}
	if iso {
		e.flush()
	}
	for _, c := range norm {
		e.push(c, PreTokClass(c), ci)
	}
	if iso {
		e.flush()
	}
}

// push runs BertPreTokenizer on one normalized char that came from the
// original char at code point ci.
func (e *encoder) push(r rune, cls uint8, ci int32) {
	switch cls {
	case ClsSpace:
		e.flush()
	case ClsPunct:
		e.flush()
		e.appendChar(r, ci)
		e.flush()
	default:
		e.appendChar(r, ci)
	}
}

func (e *encoder) appendChar(r rune, ci int32) {
	if e.chars == 0 {
		e.firstOrig = ci
	}
	e.lastOrig = ci
	e.chars++
	// A word past the limit becomes one [UNK] whatever its content, so
	// stop buffering: a megabyte without spaces costs no memory.
	if e.chars > e.f.wp.MaxChars {
		return
	}
	s := e.s
	n := len(s.word)
	s.word = utf8.AppendRune(s.word, r)
	for range len(s.word) - n {
		s.orig = append(s.orig, ci)
	}
}

// flush ends the current word, if any, and tokenizes it.
func (e *encoder) flush() {
	if e.chars == 0 {
		return
	}
	s := e.s
	if e.words != nil {
		*e.words = append(*e.words, string(s.word))
	}
	if e.chars > e.f.wp.MaxChars {
		e.emit(e.f.wp.Unk, e.firstOrig, e.lastOrig+1)
	} else {
		s.pieces = e.f.wp.TokenizeBytes(s.word, s.pieces[:0])
		for _, p := range s.pieces {
			e.emit(p.ID, s.orig[p.Start], s.orig[p.End-1]+1)
		}
	}
	e.word++
	e.chars = 0
	s.word, s.orig = s.word[:0], s.orig[:0]
}

func (e *encoder) emit(id, start, end int32) {
	e.out.IDs = append(e.out.IDs, id)
	e.out.Offsets = append(e.out.Offsets, tokens.Span{Start: start, End: end})
	e.out.Words = append(e.out.Words, e.word)
}

// matchAdded returns the longest added token that text starts with.
func (f *Encoder) matchAdded(text string) *added.Token {
	for i := range f.added {
		if strings.HasPrefix(text, f.added[i].Text) {
			return &f.added[i]
		}
	}
	return nil
}
