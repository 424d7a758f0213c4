package pretokenizers

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// TestSplitterOptions checks what each splitting pre-tokenizer accepts and
// refuses: missing fields as tokenizers' deserializers (checked with npm
// tokenizers 0.23.2), unknown fields and regexes Go cannot reproduce
// refused by qa-shard where HF would ignore or run them.
func TestSplitterOptions(t *testing.T) {
	for _, c := range []struct {
		json string
		err  string // "" accepted; "unsupported" ErrUnsupported; else part of the error
	}{
		{`{"type":"WhitespaceSplit"}`, ""},
		{`{"type":"Whitespace"}`, ""},
		{`{"type":"Whitespace","x":true}`, "unsupported"},
		{`{"type":"Punctuation"}`, ""},
		{`{"type":"Punctuation","behavior":"Contiguous"}`, ""},
		{`{"type":"Punctuation","behavior":"Sideways"}`, "unsupported"},
		{`{"type":"Digits"}`, "required"},
		{`{"type":"Digits","individual_digits":true}`, ""},
		{`{"type":"Split","pattern":{"String":" "},"behavior":"Removed","invert":false}`, ""},
		{`{"type":"Split","pattern":{"Regex":"\\p{L}+"},"behavior":"Isolated","invert":true}`, ""},
		{`{"type":"Split","pattern":{"String":" "},"behavior":"Removed"}`, "required"},
		{`{"type":"Split","pattern":{"Regex":"'s|'t|\\s+(?!\\S)"},"behavior":"Isolated","invert":false}`, "unsupported"},
		{`{"type":"Split","pattern":{"Regex":"(?i:'s|'t)"},"behavior":"Isolated","invert":false}`, "unsupported"},
		{`{"type":"Split","pattern":{"Regex":"[unterminated"},"behavior":"Isolated","invert":false}`, "unsupported"},
		{`{"type":"CharDelimiterSplit","delimiter":" "}`, "unsupported"},
	} {
		_, err := Parse(json.RawMessage(c.json))
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.json, err)
		case c.err == "unsupported" && !errors.Is(err, hfjson.ErrUnsupported):
			t.Errorf("%s: %v, want ErrUnsupported", c.json, err)
		case c.err != "" && c.err != "unsupported" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: %v, want an error with %q", c.json, err, c.err)
		}
	}
}

// TestSplitterWords spells out a few splits (words and char offsets) as
// Hugging Face tokenizers 0.23.2 gives them (preTokenizeString in npm
// tokenizers); the golden file covers every option on more texts.
func TestSplitterWords(t *testing.T) {
	for _, c := range []struct {
		json, text, want string
	}{
		{`{"type":"Whitespace"}`, "Hey friend!     How are you?!?", "Hey 0-3|friend 4-10|! 10-11|How 16-19|are 20-23|you 24-27|?!? 27-30"},
		{`{"type":"WhitespaceSplit"}`, "Hey man!\u3000Good?", "Hey 0-3|man! 4-8|Good? 9-14"},
		{`{"type":"Punctuation"}`, "Hey friend!     How are you?!?", "Hey friend 0-10|! 10-11|     How are you 11-27|? 27-28|! 28-29|? 29-30"},
		{`{"type":"Digits","individual_digits":false}`, "Hey 123 friend!", "Hey  0-4|123 4-7| friend! 7-15"},
		{`{"type":"Digits","individual_digits":true}`, "Hey 123 friend!", "Hey  0-4|1 4-5|2 5-6|3 6-7| friend! 7-15"},
		{`{"type":"Split","pattern":{"String":"-"},"behavior":"MergedWithNext","invert":false}`, "the-final--countdown", "the 0-3|-final 3-9|- 9-10|-countdown 10-20"},
	} {
		p, err := Parse(json.RawMessage(c.json))
		if err != nil {
			t.Fatalf("%s: %v", c.json, err)
		}
		var got []string
		for _, w := range p.Split(stage.NewNormalized(c.text, 0), nil) {
			o := w.Original(0, len(w.S))
			got = append(got, fmt.Sprintf("%s %d-%d", w.S, o.Start, o.End))
		}
		if strings.Join(got, "|") != c.want {
			t.Errorf("%s on %q:\n got %s\nwant %s", c.json, c.text, strings.Join(got, "|"), c.want)
		}
	}
}
