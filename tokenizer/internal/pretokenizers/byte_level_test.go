package pretokenizers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// gpt2Alphabet is GPT-2's bytes_to_unicode, the char of each byte 0..255
// in order, as written out by a node script from the same algorithm (and
// checked against npm tokenizers@0.23.2's byteLevelAlphabet()).
const gpt2Alphabet = "ĀāĂăĄąĆćĈĉĊċČčĎďĐđĒēĔĕĖėĘęĚěĜĝĞğĠ!\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`abcdefghijklmnopqrstuvwxyz{|}~ġĢģĤĥĦħĨĩĪīĬĭĮįİıĲĳĴĵĶķĸĹĺĻļĽľĿŀŁł¡¢£¤¥¦§¨©ª«¬Ń®¯°±²³´µ¶·¸¹º»¼½¾¿ÀÁÂÃÄÅÆÇÈÉÊËÌÍÎÏÐÑÒÓÔÕÖ×ØÙÚÛÜÝÞßàáâãäåæçèéêëìíîïðñòóôõö÷øùúûüýþÿ"

func TestByteChars(t *testing.T) {
	b := 0
	for _, r := range gpt2Alphabet {
		m := byteChars[b]
		if got, _ := utf8.DecodeRune(m.b[:m.n]); got != r {
			t.Errorf("byte %#02x: %q, want %q", b, got, r)
		}
		b++
	}
	if b != 256 {
		t.Fatalf("%d chars in the alphabet", b)
	}
	if got := strings.Join(Alphabet(), ""); got != gpt2Alphabet {
		t.Errorf("Alphabet() = %q, want GPT-2's", got)
	}
}

// TestByteLevelUnicode16: Oniguruma's \p{L} and \p{N} know Unicode 16's
// letters and digits, which Go's tables do not yet.
func TestByteLevelUnicode16(t *testing.T) {
	cls := bmpClasses()
	for _, c := range []struct {
		r    rune
		want uint8
	}{{'a', gpt2Letter}, {0x1C89, gpt2Letter}, {0x13460, gpt2Letter}, {0x2EBF0, gpt2Letter},
		{'7', gpt2Number}, {0x16130, gpt2Number}, {0x1E5F1, gpt2Number},
		{0x85, gpt2Space}, {0x3000, gpt2Space}, {0x180E, gpt2Other}, {0x200B, gpt2Other}, {'!', gpt2Other}} {
		if got := gpt2Class(cls, c.r); got != c.want {
			t.Errorf("U+%04X: class %d, want %d", c.r, got, c.want)
		}
	}
}
