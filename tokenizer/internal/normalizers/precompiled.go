package normalizers

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"qa-shard/tokenizer/internal/chars"
	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
	"qa-shard/tokenizer/tokens"
)

// precompiled is tokenizers' Precompiled normalizer (the crate
// spm_precompiled): SentencePiece's precompiled_charsmap, a Darts
// double-array trie from byte strings to offsets into a blob of
// NUL-terminated replacement strings. The format is a little-endian u32
// (the trie's size in bytes), the trie's u32 units, then the blob.
type precompiled struct {
	units []uint32
	blob  string
	// bmp caches the lookup of every single char below U+10000: an index
	// into repl, or -1 when the trie has nothing for it.
	bmp  []int32
	repl []string
}

func parsePrecompiled(raw json.RawMessage) (stage.Normalizer, error) {
	var c struct {
		Type    string  `json:"type"`
		Charsap *string `json:"precompiled_charsmap"`
	}
	if err := hfjson.Strict(raw, &c, "Precompiled normalizer"); err != nil {
		return nil, err
	}
	if c.Charsap == nil {
		return nil, fmt.Errorf("Precompiled normalizer: precompiled_charsmap is required")
	}
	if strings.ContainsAny(*c.Charsap, "\r\n") {
		// Go's decoder skips line breaks; the base64 crate refuses them.
		return nil, fmt.Errorf("Precompiled normalizer: precompiled_charsmap is not base64")
	}
	data, err := base64.StdEncoding.Strict().DecodeString(*c.Charsap)
	if err != nil {
		return nil, fmt.Errorf("Precompiled normalizer: precompiled_charsmap: %w", err)
	}
	return newPrecompiled(data)
}

func newPrecompiled(data []byte) (*precompiled, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("Precompiled normalizer: cannot parse precompiled_charsmap")
	}
	n := int(binary.LittleEndian.Uint32(data) / 4)
	data = data[4:]
	if n > len(data)/4 {
		return nil, fmt.Errorf("Precompiled normalizer: cannot parse precompiled_charsmap")
	}
	p := &precompiled{units: make([]uint32, n), blob: string(data[4*n:])}
	for i := range p.units {
		p.units[i] = binary.LittleEndian.Uint32(data[4*i:])
	}
	if !utf8.ValidString(p.blob) {
		return nil, fmt.Errorf("Precompiled normalizer: precompiled_charsmap's strings are not UTF-8")
	}
	if n == 0 {
		// spm_precompiled reads unit 0 on every lookup: an empty trie fails
		// on the first char.
		return nil, fmt.Errorf("%w: Precompiled normalizer with an empty trie", hfjson.ErrUnsupported)
	}
	p.bmp = make([]int32, 0x10000)
	index := map[string]int32{}
	var buf [4]byte
	for r := range rune(0x10000) {
		p.bmp[r] = -1
		if r >= 0xD800 && r < 0xE000 {
			continue
		}
		s, ok := p.lookup(string(buf[:utf8.EncodeRune(buf[:], r)]))
		if !ok {
			continue
		}
		k, seen := index[s]
		if !seen {
			k = int32(len(p.repl))
			index[s] = k
			p.repl = append(p.repl, s)
		}
		p.bmp[r] = k
	}
	return p, nil
}

// lookup is Precompiled::transform: the replacement of the shortest key
// that chunk starts with (common_prefix_search's first result; the search
// stops at a NUL byte), up to the blob's next NUL.
func (p *precompiled) lookup(chunk string) (string, bool) {
	u := p.units
	// A unit: bits 0-7 label (with bit 31), bit 8 has_leaf, bit 9 the
	// offset's scale (<<8), bits 10-30 offset; a leaf's value is bits 0-30.
	offset := func(x uint32) uint32 { return (x >> 10) << ((x & (1 << 9)) >> 6) }
	pos := offset(u[0])
	for i := 0; i < len(chunk); i++ {
		c := chunk[i]
		if c == 0 {
			break
		}
		pos ^= uint32(c)
		if int(pos) >= len(u) {
			return "", false // spm_precompiled would index out of bounds
		}
		x := u[pos]
		if x&(1<<31|0xFF) != uint32(c) {
			return "", false
		}
		pos ^= offset(x)
		if x>>8&1 == 1 {
			if int(pos) >= len(u) {
				return "", false
			}
			v := int(u[pos] & (1<<31 - 1))
			if v > len(p.blob) || v < len(p.blob) && !utf8.RuneStart(p.blob[v]) {
				return "", false // a slice spm_precompiled would panic on
			}
			end := strings.IndexByte(p.blob[v:], 0)
			if end < 0 {
				end = len(p.blob) - v
			}
			return p.blob[v : v+end], true
		}
	}
	return "", false
}

// char is lookup for the one char r, whose UTF-8 is s.
func (p *precompiled) char(r rune, s string) (string, bool) {
	if r < 0x10000 {
		if k := p.bmp[r]; k >= 0 {
			return p.repl[k], true
		}
		return "", false
	}
	return p.lookup(s)
}

// Normalize is Precompiled::Normalize. HF walks the extended grapheme
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
func (p *precompiled) Normalize(n *stage.Normalized) {
	b := pcBuild{n: n}
	s := n.S
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
		end = chars.GraphemeEnd(s, i)
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
	n        *stage.Normalized
	modified bool
	out      []byte
	align    []tokens.Span
	off      int // bytes of n.s the changes applied so far consumed
	// run is the stretch [runA, runB) of n.s kept as it is, not yet
	// applied: one (c, 0) change per char.
	runA, runB int
	// pending is the last change, not yet applied.
	pending    stage.Change
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
		b.out = make([]byte, 0, len(b.n.S)+len(b.n.S)/8)
		b.align = make([]tokens.Span, 0, cap(b.out))
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
		b.push(stage.Change{R: c, Delta: d})
		k++
	}
	if diff < 0 && b.hasPending {
		b.pending.Delta += diff
	}
}

// flushRun turns the kept stretch into (c, 0) changes, applying all but
// the last at once when the changes so far consumed exactly what precedes
// it (always, unless an empty replacement at the very start left chars
// unconsumed).
func (b *pcBuild) flushRun() {
	a, e := b.runA, b.runB
	b.runA, b.runB = 0, 0
	s := b.n.S
	for j := a; j < e; {
		r, size := utf8.DecodeRuneInString(s[j:])
		if b.hasPending && b.pending.Delta == 0 && b.off < j && b.off+pcRuneLen(s, b.off) == j && j+size < e {
			b.apply(b.pending)
			_, lsize := utf8.DecodeLastRuneInString(s[j:e])
			last := e - lsize
			b.out = append(b.out, s[j:last]...)
			b.align = append(b.align, b.n.Align[j:last]...)
			b.off = last
			lr, _ := utf8.DecodeRuneInString(s[last:])
			b.pending = stage.Change{R: lr}
			return
		}
		b.push(stage.Change{R: r})
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

func (b *pcBuild) push(c stage.Change) {
	if b.hasPending {
		b.apply(b.pending)
	}
	b.pending, b.hasPending = c, true
}

// apply is one change of NormalizedString::transform_range.
func (b *pcBuild) apply(c stage.Change) {
	s, al := b.n.S, b.n.Align
	var a tokens.Span
	if c.Delta > 0 {
		a = tokens.Span{Start: b.n.Base, End: b.n.Base}
		if b.off >= 1 {
			a = al[b.off-1]
		}
	} else {
		a = tokens.Span{Start: b.n.Base, End: b.n.Base} // past the end: HF panics
		if b.off < len(s) {
			a = al[b.off]
		}
		for range 1 - c.Delta {
			if b.off < len(s) {
				_, size := utf8.DecodeRuneInString(s[b.off:])
				b.off += size
			}
		}
	}
	size := len(b.out)
	b.out = utf8.AppendRune(b.out, c.R)
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
	b.n.S, b.n.Align = string(b.out), b.align
}
