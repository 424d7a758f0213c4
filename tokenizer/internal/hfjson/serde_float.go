package hfjson

import (
	"errors"
	"math"
	"strconv"
)

// SerdeFloat reads a JSON number as serde_json reads it into an f64
// without its float_roundtrip feature, which is how tokenizers reads the
// Unigram scores: the digits are gathered into a u64 significand (digits
// that would overflow it are dropped and only shift the exponent), the
// significand is rounded to an f64 and then multiplied or divided once by
// a power of ten. The result is not always the correctly rounded value Go's
// strconv gives (a score written with 17 significant digits can be one ulp
// away), and Viterbi ties hang on the last bit, so the scores are read the
// same way.
func SerdeFloat(s string) (float64, error) {
	bad := errors.New("invalid number " + strconv.Quote(s))
	i := 0
	positive := true
	if i < len(s) && s[i] == '-' {
		positive = false
		i++
	}
	digit := func() (uint64, bool) {
		if i < len(s) && '0' <= s[i] && s[i] <= '9' {
			return uint64(s[i] - '0'), true
		}
		return 0, false
	}
	// overflow is serde_json's overflow! macro for u64.
	overflow := func(a, d uint64) bool {
		const m = math.MaxUint64
		return a >= m/10 && (a > m/10 || d > m%10)
	}
	var sig uint64
	exp := int32(0)
	d, ok := digit()
	if !ok {
		return 0, bad
	}
	i++
	if d == 0 {
		if _, ok := digit(); ok {
			return 0, bad // a leading zero
		}
	} else {
		sig = d
		for {
			d, ok := digit()
			if !ok {
				break
			}
			i++
			if overflow(sig, d) {
				// parse_long_integer: the remaining integer digits only
				// count in the exponent.
				exp++
				for {
					if _, ok := digit(); !ok {
						break
					}
					i++
					exp++
				}
				break
			}
			sig = sig*10 + d
		}
	}
	isFloat := false
	if i < len(s) && s[i] == '.' {
		isFloat = true
		i++
		n := 0
		for {
			d, ok := digit()
			if !ok {
				break
			}
			if overflow(sig, d) {
				// parse_decimal_overflow: the remaining digits are dropped.
				for {
					if _, ok := digit(); !ok {
						break
					}
					i++
				}
				n = max(n, 1)
				break
			}
			i++
			n++
			sig = sig*10 + d
			exp--
		}
		if n == 0 {
			return 0, bad
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		isFloat = true
		i++
		posExp := true
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			posExp = s[i] == '+'
			i++
		}
		d, ok := digit()
		if !ok {
			return 0, bad
		}
		i++
		e := int32(d)
		for {
			d, ok := digit()
			if !ok {
				break
			}
			i++
			if e >= math.MaxInt32/10 && (e > math.MaxInt32/10 || int32(d) > math.MaxInt32%10) {
				// parse_exponent_overflow: zero, or out of range.
				if sig != 0 && posExp {
					return 0, bad
				}
				for {
					if _, ok := digit(); !ok {
						break
					}
					i++
				}
				if i != len(s) {
					return 0, bad
				}
				return math.Copysign(0, serdeSign(positive)), nil
			}
			e = e*10 + int32(d)
		}
		if posExp {
			exp = serdeSatAdd(exp, e)
		} else {
			exp = serdeSatAdd(exp, -e)
		}
	}
	if i != len(s) {
		return 0, bad
	}
	if !isFloat && exp == 0 {
		// An integer: u64 or i64, converted with `as f64`.
		return serdeSign(positive) * float64(sig), nil
	}
	return f64FromParts(positive, sig, exp, bad)
}

func serdeSign(positive bool) float64 {
	if positive {
		return 1
	}
	return -1
}

func serdeSatAdd(a, b int32) int32 {
	s := int64(a) + int64(b)
	return int32(max(min(s, math.MaxInt32), math.MinInt32))
}

// serdePow10 is serde_json's POW10: 1e0 ..= 1e308, each correctly rounded.
var serdePow10 = func() [309]float64 {
	var t [309]float64
	for k := range t {
		t[k], _ = strconv.ParseFloat("1e"+strconv.Itoa(k), 64)
	}
	return t
}()

// f64FromParts is serde_json's f64_from_parts without float_roundtrip.
func f64FromParts(positive bool, sig uint64, exp int32, bad error) (float64, error) {
	f := float64(sig)
	for {
		a := int64(exp)
		if a < 0 {
			a = -a
		}
		if a < int64(len(serdePow10)) {
			if exp >= 0 {
				f *= serdePow10[a]
				if math.IsInf(f, 0) {
					return 0, bad
				}
			} else {
				f /= serdePow10[a]
			}
			break
		}
		if f == 0 {
			break
		}
		if exp >= 0 {
			return 0, bad
		}
		f /= 1e308
		exp += 308
	}
	if !positive {
		f = -f
	}
	return f, nil
}
