package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// bpe is tokenizers' BPE model. A word starts as its chars (each looked up
// with continuing_subword_prefix unless first, end_of_word_suffix if last),
// then pairs are merged by rank (bpe_word.go); tokenize keeps the pieces of
// the words it has seen (bpe_cache.go), as HF keeps a cache of words.
type bpe struct {
	vocab  map[string]int32
	tokens []string // id -> token
	known  []bool   // the ids in use
	// merges maps a pair of ids (left<<32 | right) to its rank and the id
	// of the merged token.
	merges         map[uint64]bpeMerge
	prefix, suffix string
	unk            int32 // -1: no unk_token
	fuseUnk        bool
	byteFallback   bool
	byteIDs        [256]int32 // <0xXX> tokens, -1 when absent
	ignoreMerges   bool
	noMerges       bool // dropout 1: every merge is dropped
	charIDs        [0x180]int32
	cache          *bpeCache
}

type bpeMerge struct {
	rank, id int32
}

func pairKey(a, b int32) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// bpeConfig is the model's JSON as tokenizers 0.23 serializes it.
type bpeConfig struct {
	Type         string           `json:"type"`
	Dropout      *float64         `json:"dropout"`
	UNK          *string          `json:"unk_token"`
	Prefix       *string          `json:"continuing_subword_prefix"`
	Suffix       *string          `json:"end_of_word_suffix"`
	FuseUNK      *bool            `json:"fuse_unk"`
	ByteFallback *bool            `json:"byte_fallback"`
	IgnoreMerges *bool            `json:"ignore_merges"`
	Vocab        map[string]int64 `json:"vocab"`
	Merges       json.RawMessage  `json:"merges"`
}

func parseBPE(raw json.RawMessage) (stage.Model, error) {
	var c bpeConfig
	if err := hfjson.Strict(raw, &c, "BPE model"); err != nil {
		return nil, err
	}
	if c.Vocab == nil || hfjson.IsNull(c.Merges) {
		return nil, fmt.Errorf("BPE model: missing vocab/merges")
	}
	m := &bpe{vocab: make(map[string]int32, len(c.Vocab)), unk: -1, cache: newBPECache()}
	if c.Dropout != nil {
		// Dropout draws a random number per merge: only its two
		// deterministic values are reproducible. 0 merges as if unset; 1
		// drops every merge (and skips ignore_merges, which HF only checks
		// without dropout).
		switch d := *c.Dropout; {
		case d < 0 || d > 1:
			return nil, fmt.Errorf("BPE model: dropout %v is not in [0, 1]", d)
		case d == 1:
			m.noMerges = true
		case d != 0:
			return nil, fmt.Errorf("%w: BPE dropout %v is random, so it cannot be reproduced", hfjson.ErrUnsupported, d)
		}
	}
	maxID := int64(-1)
	for tok, id := range c.Vocab {
		if id < 0 || id > math.MaxInt32 {
			return nil, fmt.Errorf("BPE vocab entry %q has id %d, want a non-negative int32", tok, id)
		}
		m.vocab[tok] = int32(id)
		maxID = max(maxID, id)
	}
	if maxID >= 4*int64(len(c.Vocab))+1024 {
		return nil, fmt.Errorf("%w: BPE vocab of %d tokens with ids up to %d (too sparse)", hfjson.ErrUnsupported, len(c.Vocab), maxID)
	}
	m.tokens = make([]string, maxID+1)
	m.known = make([]bool, maxID+1)
	for tok, id := range m.vocab {
		m.tokens[id], m.known[id] = tok, true
	}
	if c.Prefix != nil {
		m.prefix = *c.Prefix
	}
	if c.Suffix != nil {
		m.suffix = *c.Suffix
	}
	m.fuseUnk = c.FuseUNK != nil && *c.FuseUNK
	m.byteFallback = c.ByteFallback != nil && *c.ByteFallback
	m.ignoreMerges = c.IgnoreMerges != nil && *c.IgnoreMerges
	if m.byteFallback && (m.prefix != "" || m.suffix != "") {
		// HF looks up the bytes of the affixed char: the prefix's and
		// suffix's bytes become tokens too, with offsets past the word.
		return nil, fmt.Errorf("%w: BPE byte_fallback with continuing_subword_prefix or end_of_word_suffix", hfjson.ErrUnsupported)
	}
	if c.UNK != nil {
		id, ok := m.vocab[*c.UNK]
		if !ok {
			// HF fails the whole encode at the first unknown char.
			return nil, fmt.Errorf("%w: BPE unk_token %q is not in the vocab (tokenizers fails on the first unknown char)", hfjson.ErrUnsupported, *c.UNK)
		}
		m.unk = id
	}
	for b := range m.byteIDs {
		id, ok := m.vocab[fmt.Sprintf("<0x%02X>", b)]
		m.byteIDs[b] = -1
		if ok {
			m.byteIDs[b] = id
		}
	}
	for r := range m.charIDs {
		m.charIDs[r] = -1
		if id, ok := m.vocab[string(rune(r))]; ok {
			m.charIDs[r] = id
		}
	}
	pairs, err := parseMerges(c.Merges)
	if err == nil {
		err = m.setMerges(pairs)
	}
	if err != nil {
		return nil, err
	}
	return m, nil
}

// parseMerges reads merges as [left, right] pairs or, in the older form,
// "left right" strings (lines starting with "#version" skipped, each split
// at spaces into exactly two parts), as BPE's deserializer does.
func parseMerges(raw json.RawMessage) ([][2]string, error) {
	var pairs [][2]string
	var tuples [][]string
	if err := json.Unmarshal(raw, &tuples); err == nil {
		for _, t := range tuples {
			if len(t) != 2 {
				return nil, fmt.Errorf("BPE merges: %q is not a [left, right] pair", t)
			}
			pairs = append(pairs, [2]string{t[0], t[1]})
		}
		return pairs, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return nil, fmt.Errorf("BPE merges: want [left, right] pairs or \"left right\" strings: %w", err)
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "#version") {
			continue
		}
		parts := strings.Split(l, " ")
		if len(parts) != 2 {
			return nil, fmt.Errorf("BPE merges: merge %d is %q, not two tokens split by a space", len(pairs)+1, l)
		}
		pairs = append(pairs, [2]string{parts[0], parts[1]})
	}
	return pairs, nil
}

// setMerges ranks the merges by position; a pair listed twice keeps its
// last rank, as HF's map keeps the last insert. The merged token is left +
// right without the prefix's length in bytes (whether or not right starts
// with it), as BpeBuilder::build makes it.
func (m *bpe) setMerges(pairs [][2]string) error {
	m.merges = make(map[uint64]bpeMerge, len(pairs))
	var buf bytes.Buffer
	for rank, p := range pairs {
		a, ok1 := m.vocab[p[0]]
		b, ok2 := m.vocab[p[1]]
		if !ok1 || !ok2 {
			return fmt.Errorf("BPE merge %q %q: a token is not in the vocab", p[0], p[1])
		}
		if len(p[1]) < len(m.prefix) {
			return fmt.Errorf("BPE merge %q %q: the right token is shorter than continuing_subword_prefix", p[0], p[1])
		}
		buf.Reset()
		buf.WriteString(p[0])
		buf.WriteString(p[1][len(m.prefix):])
		id, ok := m.vocab[buf.String()]
		if !ok {
			return fmt.Errorf("BPE merge %q %q: the merged token %q is not in the vocab", p[0], p[1], buf.String())
		}
		m.merges[pairKey(a, b)] = bpeMerge{rank: int32(rank), id: id}
	}
	return nil
}

func (m *bpe) TokenToID(tok string) (int32, bool) {
	id, ok := m.vocab[tok]
	return id, ok
}

func (m *bpe) IDToToken(id int32) (string, bool) {
	if id < 0 || int(id) >= len(m.tokens) || !m.known[id] {
		return "", false
	}
	return m.tokens[id], true
}

func (m *bpe) Size() int { return len(m.tokens) }

func (m *bpe) Kind() string { return "BPE" }

// Tokenize is BPE::Tokenize: with ignore_merges a word found whole in the
// vocab is one token; otherwise its merged pieces, from the cache when the
// word was seen before (HF caches words under 256 bytes).
func (m *bpe) Tokenize(word string, dst []stage.Piece) []stage.Piece {
	if word == "" {
		return dst
	}
	if m.ignoreMerges && !m.noMerges {
		if id, ok := m.vocab[word]; ok {
			return append(dst, stage.Piece{ID: id, Start: 0, End: int32(len(word))})
		}
	}
	if len(word) >= bpeCacheMaxWord || m.noMerges {
		return m.mergeWord(word, dst)
	}
	if ps, ok := m.cache.get(word); ok {
		return append(dst, ps...)
	}
	first := len(dst)
	dst = m.mergeWord(word, dst)
	m.cache.put(word, dst[first:])
	return dst
}
