package models

import (
	"slices"
	"strings"
)

// uniTrie is a double-array trie over the vocabulary's bytes: from state
// s, byte c leads to t = base[s]+c when check[t] == s. It answers the same
// common-prefix searches as tokenizers' Unigram trie (a map per node),
// which yields every token that the text at a position starts with,
// shortest first; an empty token is never yielded.
type uniTrie struct {
	base  []int32
	check []int32
	leaf  []int32 // the token id ending at a state, or -1
}

type uniKey struct {
	s  string
	id int32
}

// newUniTrie builds the trie of keys (each key once; its id is the one
// tokenizers' token_to_ids keeps, the last duplicate).
func newUniTrie(keys []uniKey) *uniTrie {
	slices.SortFunc(keys, func(a, b uniKey) int { return strings.Compare(a.s, b.s) })
	size := 1024
	for _, k := range keys {
		size += len(k.s)
	}
	b := uniTrieBuilder{t: &uniTrie{}, head: -1, tail: -1}
	b.t.base = make([]int32, 0, size)
	b.t.check = make([]int32, 0, size)
	b.t.leaf = make([]int32, 0, size)
	b.next, b.prev = make([]int32, 0, size), make([]int32, 0, size)
	b.listed, b.fails = make([]bool, 0, size), make([]uint8, 0, size)
	b.grow(1024)
	b.take(0) // the root
	b.t.check[0] = 0
	b.build(0, keys, 0)
	return b.t
}

// uniTrieBuilder places states, keeping the free positions in a linked
// list so that finding room for a state's children never rescans the
// filled part of the arrays.
type uniTrieBuilder struct {
	t          *uniTrie
	next, prev []int32 // the free list
	head, tail int32
	listed     []bool  // on the free list
	fails      []uint8 // times a free position was tried as a first label and failed
}

// grow extends the arrays to n positions, all free.
func (b *uniTrieBuilder) grow(n int) {
	t := b.t
	for i := len(t.check); i < n; i++ {
		t.base = append(t.base, 0)
		t.check = append(t.check, -1)
		t.leaf = append(t.leaf, -1)
		b.next = append(b.next, -1)
		b.prev = append(b.prev, b.tail)
		b.listed = append(b.listed, true)
		b.fails = append(b.fails, 0)
		if b.tail >= 0 {
			b.next[b.tail] = int32(i)
		} else {
			b.head = int32(i)
		}
		b.tail = int32(i)
	}
}

// take removes position p from the free list.
func (b *uniTrieBuilder) take(p int32) {
	if !b.listed[p] {
		return
	}
	b.listed[p] = false
	n, v := b.next[p], b.prev[p]
	if v >= 0 {
		b.next[v] = n
	} else {
		b.head = n
	}
	if n >= 0 {
		b.prev[n] = v
	} else {
		b.tail = v
	}
}

// findBase is the first base at which every label lands on a free
// position (the first label on a free one by construction). A position
// that keeps failing as the first label's stops being a candidate (it
// stays free for the other labels), as darts-clone gives up on crowded
// stretches.
func (b *uniTrieBuilder) findBase(labels []byte) int {
	t := b.t
	p := b.head
	for {
		if p < 0 || b.next[p] < 0 {
			b.grow(len(t.check) + 1024)
			if p < 0 {
				p = b.head
			}
		}
		base := int(p) - int(labels[0])
		if base >= 1 {
			if need := base + 256; need > len(t.check) {
				b.grow(need)
			}
			ok := true
			for _, c := range labels[1:] {
				if t.check[base+int(c)] >= 0 {
					ok = false
					break
				}
			}
			if ok {
				return base
			}
			if b.fails[p]++; b.fails[p] >= 16 {
				b.take(p)
			}
		}
		p = b.next[p]
	}
}

// build places the children of state s, whose keys (sorted, sharing their
// first depth bytes) are keys.
func (b *uniTrieBuilder) build(s int32, keys []uniKey, depth int) {
	t := b.t
	if len(keys) > 0 && len(keys[0].s) == depth {
		if depth > 0 {
			t.leaf[s] = keys[0].id
		}
		keys = keys[1:]
	}
	if len(keys) == 0 {
		return
	}
	var labels []byte
	for _, k := range keys {
		if c := k.s[depth]; len(labels) == 0 || labels[len(labels)-1] != c {
			labels = append(labels, c)
		}
	}
	base := b.findBase(labels)
	t.base[s] = int32(base)
	for _, c := range labels {
		t.check[base+int(c)] = s
		b.take(int32(base + int(c)))
	}
	for i := 0; i < len(keys); {
		c := keys[i].s[depth]
		j := i + 1
		for j < len(keys) && keys[j].s[depth] == c {
			j++
		}
		b.build(int32(base+int(c)), keys[i:j], depth+1)
		i = j
	}
}

// next is the state after byte c from state s, or -1.
func (t *uniTrie) next(s int32, c byte) int32 {
	n := t.base[s] + int32(c)
	if int(n) < len(t.check) && t.check[n] == s && n != 0 {
		return n
	}
	return -1
}
