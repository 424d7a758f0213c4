package main

import (
	"math"
	"testing"
)

// TestRyu: floats as tokenizers 0.23.2's Tokenizer.save wrote these very
// values (Unigram scores), so scores read back to the same float and print
// the same.
func TestRyu(t *testing.T) {
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {-1, "-1.0"}, {-10.5, "-10.5"}, {1e-5, "0.00001"}, {1e-6, "1e-6"},
		{1.5e-7, "1.5e-7"}, {1e16, "1e+16"}, {1e17, "1e+17"}, {1.2345678901234568e20, "1.2345678901234568e+20"},
		{123.456, "123.456"}, {-0.0001, "-0.0001"}, {0.1, "0.1"}, {1e-300, "1e-300"}, {5e-324, "5e-324"},
		{math.MaxFloat64, "1.7976931348623157e+308"}, {-109.62355995178223, "-109.62355995178223"},
		{12345678901234567, "1.2345678901234568e+16"}, {1e15, "1000000000000000.0"},
		{float64(float32(-3.8403830528259277)), "-3.8403830528259277"},
	} {
		got, err := ryu(c.f)
		if err != nil || got != c.want {
			t.Errorf("ryu(%v) = %q, %v; want %q", c.f, got, err, c.want)
		}
	}
	if _, err := ryu(math.NaN()); err == nil {
		t.Error("NaN formatted")
	}
}
