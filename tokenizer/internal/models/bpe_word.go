package models

import "qa-shard/tokenizer/internal/stage"

// bpeSymbol is one symbol of a word being merged (tokenizers' Symbol): a
// token id, its neighbours in the word (-1: none) and its length in bytes
// (0 once merged into the symbol on its left).
type bpeSymbol struct {
	id, prev, next, len int32
}

// bpeCandidate is a merge waiting in the queue: the pair that starts at
// symbol pos, with its rank and the id it merges into.
type bpeCandidate struct {
	rank, pos, id int32
}

func (a bpeCandidate) less(b bpeCandidate) bool {
	return a.rank < b.rank || a.rank == b.rank && a.pos < b.pos
}

// mergeWord is BPE::merge_word: the word's symbols, then Word::merge_all,
// appended to dst as pieces whose offsets add up the symbols' lengths.
func (m *bpe) mergeWord(w string, dst []stage.Piece) []stage.Piece {
	var symStack [24]bpeSymbol
	var queueStack [24]bpeCandidate
	syms := m.symbols(w, symStack[:0])
	if len(syms) > 1 && !m.noMerges {
		m.mergeAll(syms, queueStack[:0])
	}
	pos := int32(0)
	for _, s := range syms {
		if s.len == 0 {
			continue
		}
		end := pos + s.len
		dst = append(dst, stage.Piece{ID: s.id, Start: min(pos, int32(len(w))), End: min(end, int32(len(w)))})
		pos = end
	}
	return dst
}

// symbols splits w into its chars' tokens. An unknown char is, with
// byte_fallback, its bytes' <0xXX> tokens when all exist (added at once,
// before any unk still pending, as HF adds them); else the unk token
// (consecutive ones fused into one with fuse_unk); without unk_token it is
// dropped, and the offsets of the symbols after it shift back, as in HF.
func (m *bpe) symbols(w string, syms []bpeSymbol) []bpeSymbol {
	add := func(id, n int32) {
		last := int32(len(syms)) - 1
		if last >= 0 {
			syms[last].next = last + 1
		}
		syms = append(syms, bpeSymbol{id: id, prev: last, next: -1, len: n})
	}
	unkLen := int32(0) // pending unk, when > 0
	var buf []byte
	for i := 0; i < len(w); {
		r, size := stage.DecodeAt(w, i)
		first, last := i == 0, i+size == len(w)
		var id int32 = -1
		if (first || m.prefix == "") && (!last || m.suffix == "") {
			if r < rune(len(m.charIDs)) {
				id = m.charIDs[r]
			} else if v, ok := m.vocab[w[i:i+size]]; ok {
				id = v
			}
		} else {
			buf = m.affixed(buf[:0], w[i:i+size], first, last)
			if v, ok := m.vocab[string(buf)]; ok {
				id = v
			}
		}
		if id >= 0 {
			if unkLen > 0 {
				add(m.unk, unkLen)
				unkLen = 0
			}
			add(id, int32(size))
			i += size
			continue
		}
		if m.byteFallback {
			buf = m.affixed(buf[:0], w[i:i+size], first, last)
			if m.allBytes(buf) {
				for _, b := range buf {
					add(m.byteIDs[b], 1)
				}
				i += size
				continue
			}
		}
		if m.unk >= 0 {
			if unkLen > 0 && !m.fuseUnk {
				add(m.unk, unkLen)
				unkLen = 0
			}
			unkLen += int32(size)
		}
		i += size
	}
	if unkLen > 0 {
		add(m.unk, unkLen)
	}
	return syms
}

// affixed is the char c as the vocab is searched for it: prefixed unless
// first, suffixed if last.
func (m *bpe) affixed(buf []byte, c string, first, last bool) []byte {
	if !first {
		buf = append(buf, m.prefix...)
	}
	buf = append(buf, c...)
	if last {
		buf = append(buf, m.suffix...)
	}
	return buf
}

func (m *bpe) allBytes(s []byte) bool {
	for _, b := range s {
		if m.byteIDs[b] < 0 {
			return false
		}
	}
	return true
}

// mergeAll is Word::merge_all without dropout: a min-queue of candidate
// merges by (rank, position); an entry whose symbol is gone, is last, or
// whose pair now merges into another id is stale and skipped (HF compares
// the id only, so a pair of the same result but another rank still
// merges). After a merge, the new pairs with both neighbours are queued.
func (m *bpe) mergeAll(syms []bpeSymbol, q []bpeCandidate) {
	for i := 0; i+1 < len(syms); i++ {
		if mg, ok := m.merges[pairKey(syms[i].id, syms[i+1].id)]; ok {
			q = heapPush(q, bpeCandidate{rank: mg.rank, pos: int32(i), id: mg.id})
		}
	}
	for len(q) > 0 {
		var top bpeCandidate
		top, q = heapPop(q)
		cur := &syms[top.pos]
		if cur.len == 0 || cur.next == -1 {
			continue
		}
		right := syms[cur.next]
		if mg, ok := m.merges[pairKey(cur.id, right.id)]; !ok || mg.id != top.id {
			continue
		}
		syms[cur.next].len = 0
		cur.id, cur.len, cur.next = top.id, cur.len+right.len, right.next
		if right.next >= 0 && int(right.next) < len(syms) {
			syms[right.next].prev = top.pos
		}
		if cur.prev >= 0 {
			if mg, ok := m.merges[pairKey(syms[cur.prev].id, cur.id)]; ok {
				q = heapPush(q, bpeCandidate{rank: mg.rank, pos: cur.prev, id: mg.id})
			}
		}
		if cur.next >= 0 && int(cur.next) < len(syms) {
			if mg, ok := m.merges[pairKey(cur.id, syms[cur.next].id)]; ok {
				q = heapPush(q, bpeCandidate{rank: mg.rank, pos: top.pos, id: mg.id})
			}
		}
	}
}

// heapPush and heapPop keep q a binary min-heap. Equal (rank, pos) entries
// are the same merge, so the pop order is HF's whatever the heap's shape.
func heapPush(q []bpeCandidate, c bpeCandidate) []bpeCandidate {
	q = append(q, c)
	for i := len(q) - 1; i > 0; {
		p := (i - 1) / 2
		if !q[i].less(q[p]) {
			break
		}
		q[i], q[p] = q[p], q[i]
		i = p
	}
	return q
}

func heapPop(q []bpeCandidate) (bpeCandidate, []bpeCandidate) {
	top := q[0]
	n := len(q) - 1
	q[0] = q[n]
	q = q[:n]
	for i := 0; ; {
		l, s := 2*i+1, i
		if l < n && q[l].less(q[s]) {
			s = l
		}
		if l+1 < n && q[l+1].less(q[s]) {
			s = l + 1
		}
		if s == i {
			break
		}
		q[i], q[s] = q[s], q[i]
		i = s
	}
	return top, q
}
