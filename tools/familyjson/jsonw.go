package main

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// obj is a JSON object whose keys keep the order they were set in, as
// tokenizers' serde structs and id-ordered vocabularies do.
type obj struct {
	keys []string
	vals []any
}

// o builds an object from alternating keys and values.
func o(kv ...any) *obj {
	m := &obj{}
	for i := 0; i+1 < len(kv); i += 2 {
		m.set(kv[i].(string), kv[i+1])
	}
	return m
}

func (m *obj) set(k string, v any) *obj {
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
	return m
}

// f64 is a float written the way Rust's serde_json (ryu) writes an f64: the
// shortest digits that read back to the same value, always with a '.' or an
// exponent ("0.0", "-10.5", "1e-7"), so scores match tokenizers' own save.
type f64 float64

// writeJSON renders v like serde_json's PrettyFormatter (and Python's
// json.dumps(indent=2, ensure_ascii=False)): two-space indent, "key": value,
// empty containers as [] and {}, non-ASCII text as is, a final newline only
// if nl is set.
func writeJSON(v any, nl bool) ([]byte, error) {
	var b bytes.Buffer
	if err := render(&b, v, 0); err != nil {
		return nil, err
	}
	if nl {
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

func render(b *bytes.Buffer, v any, depth int) error {
	indent := func(d int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("  ", d))
	}
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int:
		b.WriteString(strconv.Itoa(x))
	case f64:
		s, err := ryu(float64(x))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case string:
		quote(b, x)
	case []any:
		if len(x) == 0 {
			b.WriteString("[]")
			return nil
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			if err := render(b, e, depth+1); err != nil {
				return err
			}
		}
		indent(depth)
		b.WriteByte(']')
	case *obj:
		if len(x.keys) == 0 {
			b.WriteString("{}")
			return nil
		}
		b.WriteByte('{')
		for i, k := range x.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			indent(depth + 1)
			quote(b, k)
			b.WriteString(": ")
			if err := render(b, x.vals[i], depth+1); err != nil {
				return err
			}
		}
		indent(depth)
		b.WriteByte('}')
	default:
		return fmt.Errorf("json: unsupported value of type %T", v)
	}
	return nil
}

// quote escapes only what serde_json and Python's json escape: the quote,
// the backslash and the C0 controls (\b \f \n \r \t short, the rest \u00xx).
func quote(b *bytes.Buffer, s string) {
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if c < 0x20 {
				fmt.Fprintf(b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
}

// ryu formats f as tokenizers 0.23's serde_json does: with d the shortest
// round-trip digits and f = 0.d × 10^kk, plain decimal notation when
// -5 < kk <= 16, else scientific: d[0].d[1:] and "e-7" or "e+16".
func ryu(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("json: %v has no JSON form", f)
	}
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0", nil
		}
		return "0.0", nil
	}
	sign := ""
	if f < 0 {
		sign, f = "-", -f
	}
	// strconv's 'e' form with -1 precision has the same shortest digits.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, err := strconv.Atoi(exp)
	if err != nil {
		return "", fmt.Errorf("json: format %v: %w", f, err)
	}
	n := len(digits)
	kk := x + 1 // f = 0.digits × 10^kk
	k := kk - n // f = digits × 10^k
	var s string
	switch {
	case k >= 0 && kk <= 16:
		s = digits + strings.Repeat("0", k) + ".0"
	case kk > 0 && kk <= 16:
		s = digits[:kk] + "." + digits[kk:]
	case kk > -5 && kk <= 0:
		s = "0." + strings.Repeat("0", -kk) + digits
	default:
		s = digits[:1]
		if n > 1 {
			s += "." + digits[1:]
		}
		if kk > 0 {
			s += "e+" + strconv.Itoa(kk-1)
		} else {
			s += "e" + strconv.Itoa(kk-1)
		}
	}
	return sign + s, nil
}
