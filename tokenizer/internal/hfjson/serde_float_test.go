package hfjson

import (
	"math"
	"strconv"
	"testing"
)

// TestSerdeFloat: scores read as tokenizers reads them. Each expected value
// is what npm tokenizers@0.23.2 wrote back (Tokenizer.save, ryu's shortest
// form) after loading a Unigram vocab with that score; the same check over
// all 30000 scores of ALBERT's vocab and 12000 random ones matched, while Go's
// correctly rounded strconv differed on about a fifth of them.
func TestSerdeFloat(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"-3.8403830528259277", "-3.840383052825928"}, // an ALBERT score: not strconv's value
		{"-7.3909687995910645", "-7.390968799591064"},
		{"-15.275492379532281", "-15.27549237953228"},
		{"-15.275492379532281007", "-15.275492379532281"}, // digits past the u64 are dropped
		{"-10.563400268554688", "-10.563400268554688"},
		{"0.0", "0"},
		{"-0", "-0"},
		{"-0.0", "-0"},
		{"0.1", "0.1"},
		{"-0.30000000000000004", "-0.30000000000000004"},
		{"18446744073709551616", "1.8446744073709552e+19"},
		{"184467440737095516160", "1.844674407370955e+20"},
		{"1844674407370955161.56", "1.8446744073709553e+18"},
		{"12345678901234567890123", "1.2345678901234568e+22"},
		{"-9.87654321987654321e-5", "-0.00009876543219876543"},
		{"0.000000000000000000000000123456789012345678", "1.2345678901234568e-25"},
		{"1e-400", "0"},
		{"-1e-400", "-0"},
		{"1.7976931348623157e308", "1.7976931348623157e+308"},
		{"9007199254740993", "9007199254740992"},
		{"4.9e-324", "5e-324"},
		{"1e-320", "1e-320"},
		{"0e999999999999", "0"},
	} {
		want, err := strconv.ParseFloat(c.want, 64)
		if err != nil {
			t.Fatal(err)
		}
		got, err := SerdeFloat(c.in)
		if err != nil || got != want || math.Signbit(got) != math.Signbit(want) {
			t.Errorf("SerdeFloat(%s) = %v, %v; want %v", c.in, got, err, want)
		}
	}
	for _, in := range []string{"", "-", "01", "1.", "1e", "1e+", ".5", "1x", "2e999999999999"} {
		if _, err := SerdeFloat(in); err == nil {
			t.Errorf("SerdeFloat(%q) accepted", in)
		}
	}
}
