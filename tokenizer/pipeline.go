package tokenizer

import (
	"sync"

	"qa-shard/tokenizer/tokens"
)

// The four stages of a Hugging Face tokenizer, as tokenizer.json declares
// them (tokenizers' tokenizer/mod.rs), and the general encoder that runs
// them. Each kind's components are in the files that start with its name:
// normalizers*.go, pre_tokenizers*.go, models*.go; the post-processor,
// which frames a pair rather than encoding a text, is processors*.go.

// normalizer rewrites a text in place, keeping its alignments
// (tokenizers' Normalizer).
type normalizer interface {
	normalize(n *normalized)
}

// preTokenizer cuts each piece into words, and may rewrite them as it goes
// (ByteLevel maps bytes to chars, Metaspace spaces to ▁): tokenizers'
// PreTokenizer over the splits of a PreTokenizedString. Empty pieces are
// dropped, as PreTokenizedString::split drops them.
type preTokenizer interface {
	split(n normalized, dst []normalized) []normalized
}

// model turns one word into tokens (tokenizers' Model).
type model interface {
	// tokenize appends the tokens of word (valid UTF-8) to dst, each with
	// a byte range of word.
	tokenize(word string, dst []piece) []piece
	// tokenToID and idToToken look the vocabulary up.
	tokenToID(tok string) (int32, bool)
	idToToken(id int32) (string, bool)
	// size is one more than the largest id in the vocabulary.
	size() int
	// kind is the model's type as tokenizer.json names it (WordPiece,
	// BPE, Unigram), for Components.
	kind() string
}

// piece is one token of a word: an id and a byte range of the word.
type piece struct {
	id         int32
	start, end int32
}

// pipeline is the general encoder: added tokens, normalizer,
// pre-tokenizer and model, in tokenizers' order
// (TokenizerImpl::encode_single_sequence).
type pipeline struct {
	norm  normalizer   // nil: none
	pre   preTokenizer // nil: none
	model model
	added *addedVocab
}

// encodeBuffers are what one encode lends its stages, back in a pool when
// it returns: nothing built in them may outlive the call (the tokens take
// copies of the offsets, the added tokens' matches are strings), and what
// a normalizer builds in them lives until the next segment is normalized.
// None holds a pointer, so a pooled one keeps nothing alive.
type encodeBuffers struct {
	text  []tokens.Span // the alignments of the whole text (splitRaw)
	norm  []tokens.Span // a normalizer's alignments of one segment
	bytes []byte        // a normalizer's text while it is built
}

var encodeBufferPool = sync.Pool{New: func() any { return new(encodeBuffers) }}

// bufferedNormalizer is a normalizer that can build its result in an
// encode's buffers (b.norm and b.bytes).
type bufferedNormalizer interface {
	normalizeBuffered(n *normalized, b *encodeBuffers)
}

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
	var pieces []piece
	encodeWord := func(w normalized) {
		if w.s == "" {
			return
		}
		pieces = p.model.tokenize(w.s, pieces[:0])
		for _, pc := range pieces {
			emit(pc.id, w.original(int(pc.start), int(pc.end)))
		}
		word++
	}
	// The word-split tokenizers' stage hands its words over one by one
	// (a concrete type, so that encodeWord stays on the stack).
	visitor, _ := p.pre.(*wordStage)
	var words []normalized
	if visitor == nil {
		words = make([]normalized, 0, len(text)/6+4) // about one word per 6 bytes: no regrowth on most texts
	}
	bufs := encodeBufferPool.Get().(*encodeBuffers)
	defer encodeBufferPool.Put(bufs)
	buffered, _ := p.norm.(bufferedNormalizer)
	for _, seg := range p.added.splitRaw(text, &bufs.text) {
		if seg.tok != nil {
			if matched != nil {
				matched[len(out.IDs)] = seg.n.s
			}
			emit(seg.tok.id, seg.n.original(0, len(seg.n.s)))
			word++
			continue
		}
		n := seg.n
		switch {
		case buffered != nil:
			buffered.normalizeBuffered(&n, bufs)
		case p.norm != nil:
			p.norm.normalize(&n)
		}
		if n.s == "" {
			continue
		}
		for _, part := range p.added.splitNormalized(n) {
			if part.tok != nil {
				if matched != nil {
					matched[len(out.IDs)] = part.n.s
				}
				emit(part.tok.id, part.n.original(0, len(part.n.s)))
				word++
				continue
			}
			if visitor != nil {
				visitor.eachWord(part.n, encodeWord)
				continue
			}
			words = append(words[:0], part.n)
			if p.pre != nil {
				words = p.pre.split(part.n, words[:0])
			}
			for _, w := range words {
				encodeWord(w)
			}
		}
	}
	return out
}
