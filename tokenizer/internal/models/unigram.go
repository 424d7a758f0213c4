package models

import (
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// unigram is tokenizers' Unigram model as it encodes (encode_optimized,
// SentencePiece's Viterbi): the best-scoring segmentation of a word into
// vocabulary pieces, a char no piece of its own length covers becoming unk
// with score min_score - 10, consecutive unk pieces fused into one (HF's
// Unigram always fuses), and, with byte_fallback, an unknown piece spelled
// as <0xXX> byte tokens when all its bytes have one.
type unigram struct {
	trie     *uniTrie
	scores   []float64 // by id
	tokens   []string  // by id
	ids      map[string]int32
	unk      int32
	unkScore float64
	bytes    [256]int32 // <0xXX> ids (byte_fallback), -1 when absent
	fallback bool
	scratch  sync.Pool // *uniLattice
}

func parseUnigram(raw json.RawMessage) (stage.Model, error) {
	var c struct {
		Type         string              `json:"type"`
		UnkID        *int64              `json:"unk_id"`
		Vocab        [][]json.RawMessage `json:"vocab"`
		ByteFallback bool                `json:"byte_fallback"`
	}
	if err := hfjson.Strict(raw, &c, "Unigram model"); err != nil {
		return nil, err
	}
	if c.Vocab == nil {
		return nil, fmt.Errorf("Unigram model: missing vocab")
	}
	if c.UnkID == nil {
		// Without unk_id tokenizers fails on any char its vocab lacks, a
		// failure Encode has no way to report.
		return nil, fmt.Errorf("%w: a Unigram model without unk_id fails on unknown chars in Hugging Face; qa-shard needs one", hfjson.ErrUnsupported)
	}
	if len(c.Vocab) == 0 || *c.UnkID < 0 || *c.UnkID >= int64(len(c.Vocab)) || len(c.Vocab) > math.MaxInt32 {
		return nil, fmt.Errorf("Unigram model: unk_id %d is not in a vocab of %d", *c.UnkID, len(c.Vocab))
	}
	u := &unigram{
		scores: make([]float64, len(c.Vocab)), tokens: make([]string, len(c.Vocab)),
		ids: make(map[string]int32, len(c.Vocab)), unk: int32(*c.UnkID), fallback: c.ByteFallback,
	}
	minScore := math.Inf(1)
	for id, e := range c.Vocab {
		if len(e) != 2 {
			return nil, fmt.Errorf("Unigram model: vocab entry %d is not [piece, score]", id)
		}
		if err := json.Unmarshal(e[0], &u.tokens[id]); err != nil {
			return nil, fmt.Errorf("Unigram model: vocab entry %d: %w", id, err)
		}
		score, err := hfjson.SerdeFloat(string(e[1]))
		if err != nil {
			return nil, fmt.Errorf("Unigram model: vocab entry %d: %w", id, err)
		}
		u.scores[id] = score
		minScore = min(minScore, score)
		u.ids[u.tokens[id]] = int32(id) // the last duplicate wins, as in token_to_ids
	}
	u.unkScore = minScore - 10
	keys := make([]uniKey, 0, len(u.ids))
	for s, id := range u.ids {
		keys = append(keys, uniKey{s: s, id: id})
	}
	u.trie = newUniTrie(keys)
	for b := range u.bytes {
		u.bytes[b] = -1
		if id, ok := u.ids[fmt.Sprintf("<0x%02X>", b)]; ok {
			u.bytes[b] = id
		}
	}
	u.scratch.New = func() any { return new(uniLattice) }
	return u, nil
}

func (u *unigram) TokenToID(tok string) (int32, bool) {
	id, ok := u.ids[tok]
	return id, ok
}

func (u *unigram) IDToToken(id int32) (string, bool) {
	if id < 0 || int(id) >= len(u.tokens) {
		return "", false
	}
	return u.tokens[id], true
}

func (u *unigram) Size() int { return len(u.tokens) }

func (u *unigram) Kind() string { return "Unigram" }

// uniLattice is one word's best paths: for every byte position, the best path
// ending there (its score, where its last piece starts, and that piece).
type uniLattice struct {
	score []float64
	from  []int32 // -1: not reached yet
	id    []int32
	back  []stage.Piece
}

// Tokenize is Unigram::Tokenize on one word.
func (u *unigram) Tokenize(word string, dst []stage.Piece) []stage.Piece {
	if word == "" {
		return dst
	}
	v := u.scratch.Get().(*uniLattice)
	defer u.scratch.Put(v)
	n := len(word)
	if cap(v.score) < n+1 {
		v.score, v.from, v.id = make([]float64, n+1), make([]int32, n+1), make([]int32, n+1)
	}
	score, from, ids := v.score[:n+1], v.from[:n+1], v.id[:n+1]
	for i := range from {
		from[i] = -1
	}
	score[0] = 0
	t := u.trie
	for start := 0; start < n; {
		size := 1
		if c := word[start]; c >= utf8.RuneSelf {
			_, size = utf8.DecodeRuneInString(word[start:])
		}
		here := score[start]
		single := false
		// Every piece the text at start begins with, shortest first; a
		// path replaces another only with a strictly higher score, so on a
		// tie the piece found first (the earliest start) stays.
		s := int32(0)
		for j := start; j < n; j++ {
			if s = t.next(s, word[j]); s < 0 {
				break
			}
			id := t.leaf[s]
			if id < 0 {
				continue
			}
			end := j + 1
			if c := here + u.scores[id]; from[end] < 0 || c > score[end] {
				score[end], from[end], ids[end] = c, int32(start), id
			}
			if end-start == size {
				single = true
			}
		}
		if !single {
			end := start + size
			if c := here + u.unkScore; from[end] < 0 || c > score[end] {
				score[end], from[end], ids[end] = c, int32(start), u.unk
			}
		}
		start += size
	}
	// Back from the end; runs of unk pieces become one.
	back := v.back[:0]
	for end := n; end > 0; {
		start := from[end]
		id := ids[end]
		if id == u.unk && len(back) > 0 && back[len(back)-1].ID == u.unk {
			back[len(back)-1].Start = start
		} else {
			back = append(back, stage.Piece{ID: id, Start: start, End: int32(end)})
		}
		end = int(start)
	}
	v.back = back
	for i := len(back) - 1; i >= 0; i-- {
		p := back[i]
		if p.ID != u.unk {
			dst = append(dst, p)
			continue
		}
		dst = u.unknown(word, p, dst)
	}
	return dst
}

// unknown is what Unigram::tokenize makes of a fused unk piece: the token
// its text is, if any; else with byte_fallback its bytes as <0xXX> tokens,
// each with the whole piece's offsets, when every byte has one; else unk.
func (u *unigram) unknown(word string, p stage.Piece, dst []stage.Piece) []stage.Piece {
	text := word[p.Start:p.End]
	if id, ok := u.ids[text]; ok {
		p.ID = id
		return append(dst, p)
	}
	if u.fallback {
		ok := true
		for i := 0; i < len(text) && ok; i++ {
			ok = u.bytes[text[i]] >= 0
		}
		if ok {
			for i := 0; i < len(text); i++ {
				dst = append(dst, stage.Piece{ID: u.bytes[text[i]], Start: p.Start, End: p.End})
			}
			return dst
		}
	}
	return append(dst, p)
}
