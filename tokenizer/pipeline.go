package tokenizer

import (
	"sync"

	"qa-shard/tokenizer/internal/added"
	"qa-shard/tokenizer/internal/japanese"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// pipeline is the general encoder: added tokens, normalizer,
// pre-tokenizer and model, in tokenizers' order
// (TokenizerImpl::encode_single_sequence).
type pipeline struct {
	norm  stage.Normalizer   // nil: none
	pre   stage.PreTokenizer // nil: none
	model stage.Model
	added *added.Vocab
}

var encodeBufferPool = sync.Pool{New: func() any { return new(stage.Buffers) }}

// encode is Encode for the general pipeline. Every split of the
// pre-tokenized string is a word (an added token is a word of its own), as
// PreTokenizedString::into_encoding numbers them. When matched is not nil
// it gets, for every added token, its index and the text it matched (with
// the spaces lstrip and rstrip took): tokenizers' Token.value, which offset
// trimming reads.
func (p *pipeline) encode(text string, matched map[int]string) tokens.Tokens {
	guess := len(text)/4 + 4
	out := tokens.Tokens{
		IDs:     make([]int32, 0, guess),
		Offsets: make([]tokens.Span, 0, guess),
		Words:   make([]int32, 0, guess),
	}
	word := int32(0)
	emit := func(id int32, off tokens.Span) {
		out.IDs = append(out.IDs, id)
		out.Offsets = append(out.Offsets, off)
		out.Words = append(out.Words, word)
	}
	var pieces []stage.Piece
	encodeWord := func(w stage.Normalized) {
		if w.S == "" {
			return
		}
		pieces = p.model.Tokenize(w.S, pieces[:0])
		for _, pc := range pieces {
			emit(pc.ID, w.Original(int(pc.Start), int(pc.End)))
		}
		word++
	}
	// The word-split tokenizers' stage hands its words over one by one
	// (a concrete type, so that encodeWord stays on the stack).
	visitor, _ := p.pre.(*japanese.Words)
	var words []stage.Normalized
	if visitor == nil {
		words = make([]stage.Normalized, 0, len(text)/6+4) // about one word per 6 bytes: no regrowth on most texts
	}
	bufs := encodeBufferPool.Get().(*stage.Buffers)
	defer encodeBufferPool.Put(bufs)
	buffered, _ := p.norm.(stage.BufferedNormalizer)
	for _, seg := range p.added.SplitRaw(text, &bufs.Text) {
		if seg.Tok != nil {
			if matched != nil {
				matched[len(out.IDs)] = seg.N.S
			}
			emit(seg.Tok.ID, seg.N.Original(0, len(seg.N.S)))
			word++
			continue
		}
		n := seg.N
		switch {
		case buffered != nil:
			buffered.NormalizeBuffered(&n, bufs)
		case p.norm != nil:
			p.norm.Normalize(&n)
		}
		if n.S == "" {
			continue
		}
		for _, part := range p.added.SplitNormalized(n) {
			if part.Tok != nil {
				if matched != nil {
					matched[len(out.IDs)] = part.N.S
				}
				emit(part.Tok.ID, part.N.Original(0, len(part.N.S)))
				word++
				continue
			}
			if visitor != nil {
				visitor.EachWord(part.N, encodeWord)
				continue
			}
			words = append(words[:0], part.N)
			if p.pre != nil {
				words = p.pre.Split(part.N, words[:0])
			}
			for _, w := range words {
				encodeWord(w)
			}
		}
	}
	return out
}
