package tokenizer

import (
	"unicode/utf8"

	"qa-shard/qa"
)

// normalize is Precompiled::normalize. HF walks the extended grapheme
// clusters of the text: a cluster under 6 bytes is first looked up whole
// (and a hit on any prefix of it, the first char alone included, replaces
// the whole cluster); otherwise, or on a miss, each char is looked up
// alone. Every replacement becomes transform changes by HF's `replace`
// rule: the new chars replace the old ones one for one, surplus new chars
// are insertions, and a shortfall is removed after the last change made so
// far (even one from an earlier cluster; with no change yet, nothing is
// removed and the chars stay to be consumed by the changes that follow).
// The changes then go through NormalizedString::transform, applied here
// as they come, the last one held back since a later shortfall can still
// alter it.
func (p *precompiled) normalize(n *normalized) {
	b := pcBuild{n: n}
	s := n.s
	for i := 0; i < len(s); {
		var end int
		if c := s[i]; c < utf8.RuneSelf && c != '\r' && (i+1 == len(s) || s[i+1] < utf8.RuneSelf) {
			end = i + 1 // an ASCII char before ASCII: a cluster of its own
			if k := p.bmp[c]; k >= 0 {
				b.replace(s[i:end], p.repl[k])
			} else {
				b.keep(i, end)
			}
			i = end
			continue
		}
		end = graphemeEnd(s, i)
		g := s[i:end]
		if len(g) < 6 {
			r, size := utf8.DecodeRuneInString(g)
			var repl string
			var ok bool
			if size == len(g) {
				repl, ok = p.char(r, g)
			} else {
				repl, ok = p.lookup(g)
			}
			if ok {
				b.replace(g, repl)
				i = end
				continue
			}
			if size == len(g) {
				b.keep(i, end)
				i = end
				continue
			}
		}
		for j := i; j < end; {
			r, size := utf8.DecodeRuneInString(s[j:])
			if repl, ok := p.char(r, s[j:j+size]); ok {
				b.replace(s[j:j+size], repl)
			} else {
				b.keep(j, j+size)
			}
			j += size
		}
		i = end
	}
	b.finish()
}

// pcBuild applies transform changes to n as they come.
type pcBuild struct {
	n        *normalized
	modified bool
	out      []byte
	align    []qa.Span
	off      int // bytes of n.s the changes applied so far consumed
	// run is the stretch [runA, runB) of n.s kept as it is, not yet
	// applied: one (c, 0) change per char.
	runA, runB int
	// pending is the last change, not yet applied.
	pending    change
	hasPending bool
}

// keep adds the chars of n.s[a:b], unchanged.
func (b *pcBuild) keep(a, e int) {
	if b.runB != a {
		b.flushRun()
		b.runA = a
	}
	b.runB = e
}

// replace adds the changes replacing the chars of old with those of repl.
func (b *pcBuild) replace(old, repl string) {
	if !b.modified {
		b.modified = true
		b.out = make([]byte, 0, len(b.n.s)+len(b.n.s)/8)
		b.align = make([]qa.Span, 0, cap(b.out))
	}
	b.flushRun()
	count := utf8.RuneCountInString(repl)
	diff := count - utf8.RuneCountInString(old)
	k := 0
	for _, c := range repl {
		d := 0
		if k >= count-diff {
			d = 1
		}
		b.push(change{r: c, delta: d})
		k++
	}
	if diff < 0 && b.hasPending {
		b.pending.delta += diff
	}
}

// flushRun turns the kept stretch into (c, 0) changes, applying all but
// the last at once when the changes so far consumed exactly what precedes
// it (always, unless an empty replacement at the very start left chars
// unconsumed).
func (b *pcBuild) flushRun() {
	a, e := b.runA, b.runB
	b.runA, b.runB = 0, 0
	s := b.n.s
	for j := a; j < e; {
		r, size := utf8.DecodeRuneInString(s[j:])
		if b.hasPending && b.pending.delta == 0 && b.off < j && b.off+pcRuneLen(s, b.off) == j && j+size < e {
			b.apply(b.pending)
			_, lsize := utf8.DecodeLastRuneInString(s[j:e])
			last := e - lsize
			b.out = append(b.out, s[j:last]...)
			b.align = append(b.align, b.n.align[j:last]...)
			b.off = last
			lr, _ := utf8.DecodeRuneInString(s[last:])
			b.pending = change{r: lr}
			return
		}
		b.push(change{r: r})
		j += size
	}
}

// runeLen is the size of the char at s[i:] (0 at the end).
func pcRuneLen(s string, i int) int {
	if i >= len(s) {
		return 0
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	return size
}

func (b *pcBuild) push(c change) {
	if b.hasPending {
		b.apply(b.pending)
	}
	b.pending, b.hasPending = c, true
}

// apply is one change of NormalizedString::transform_range.
func (b *pcBuild) apply(c change) {
	s, al := b.n.s, b.n.align
	var a qa.Span
	if c.delta > 0 {
		a = qa.Span{Start: b.n.base, End: b.n.base}
		if b.off >= 1 {
			a = al[b.off-1]
		}
	} else {
		a = qa.Span{Start: b.n.base, End: b.n.base} // past the end: HF panics
		if b.off < len(s) {
			a = al[b.off]
		}
		for range 1 - c.delta {
			if b.off < len(s) {
				_, size := utf8.DecodeRuneInString(s[b.off:])
				b.off += size
			}
		}
	}
	size := len(b.out)
	b.out = utf8.AppendRune(b.out, c.r)
	for range len(b.out) - size {
		b.align = append(b.align, a)
	}
}

func (b *pcBuild) finish() {
	if !b.modified {
		return
	}
	b.flushRun()
	if b.hasPending {
		b.apply(b.pending)
	}
	b.n.s, b.n.align = string(b.out), b.align
}
