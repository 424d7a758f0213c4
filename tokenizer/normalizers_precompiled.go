package tokenizer

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"
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

func parsePrecompiled(raw json.RawMessage) (normalizer, error) {
	var c struct {
		Type    string  `json:"type"`
		Charsap *string `json:"precompiled_charsmap"`
	}
	if err := strict(raw, &c, "Precompiled normalizer"); err != nil {
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
		return nil, fmt.Errorf("%w: Precompiled normalizer with an empty trie", ErrUnsupported)
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
