package tokenizer

import "unicode/utf8"

// gpt2Match returns the end of the match of GPT-2's pattern
//
//	's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// that starts at byte i of s, as tokenizers' Oniguruma finds it (first
// alternative that matches, each quantifier greedy). Every char is in one
// of the classes, so the matches tile the text and a search for the next
// match always starts at the end of the last one.
func gpt2Match(s string, i int, t *[0x10000]uint8) int {
	if s[i] == '\'' && i+1 < len(s) {
		// The contractions, lower case only, and only where a match starts.
		switch s[i+1] {
		case 's', 't', 'm', 'd':
			return i + 2
		case 'r', 'v':
			if i+2 < len(s) && s[i+2] == 'e' {
				return i + 3
			}
		case 'l':
			if i+2 < len(s) && s[i+2] == 'l' {
				return i + 3
			}
		}
	}
	r, size := decodeAt(s, i)
	k := gpt2Class(t, r)
	if r == ' ' && i+1 < len(s) {
		// " ?X+": a single U+0020 joins the run of letters, digits or
		// others that follows it.
		r2, size2 := decodeAt(s, i+1)
		if k2 := gpt2Class(t, r2); k2 != gpt2Space {
			k, i, size = k2, i+1, size2
		}
	}
	if k != gpt2Space {
		j := i + size
		for j < len(s) {
			r, size := decodeAt(s, j)
			if gpt2Class(t, r) != k {
				break
			}
			j += size
		}
		return j
	}
	// "\s+(?!\S)": the whole run of whitespace at the end of the text;
	// before a non-space, the run backs off its last char so that char can
	// go with the word after it ("  a" is " ", " a"); a run of one char
	// there is taken by the last alternative, "\s+".
	j, last := i, i
	for j < len(s) {
		r, size := decodeAt(s, j)
		if gpt2Class(t, r) != gpt2Space {
			break
		}
		last = j
		j += size
	}
	if j < len(s) && last > i {
		return last
	}
	return j
}

// decodeAt decodes the char at byte i of s, ASCII first; an invalid byte is
// a char of its own (RuneError, size 1).
func decodeAt(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}
