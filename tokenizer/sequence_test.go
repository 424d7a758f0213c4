package tokenizer

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"qa-shard/tokenizer/internal/normalizers"
	"qa-shard/tokenizer/internal/pretokenizers"
	"qa-shard/tokenizer/internal/processors"
)

// TestSequences: every kind of Sequence is read by the one reader: its
// members in order, null members left out, and a field tokenizers does
// not serialize refused with the kind's name.
func TestSequences(t *testing.T) {
	n, err := normalizers.Parse(json.RawMessage(`{"type": "Sequence", "normalizers": [{"type": "NFC"}, null, {"type": "Lowercase"}]}`))
	if seq, ok := n.(normalizers.Sequence); err != nil || !ok || len(seq) != 2 {
		t.Errorf("normalizers: %#v %v, want a Sequence of 2", n, err)
	}
	p, err := pretokenizers.Parse(json.RawMessage(`{"type": "Sequence", "pretokenizers": [null, {"type": "WhitespaceSplit"}]}`))
	if seq, ok := p.(pretokenizers.Sequence); err != nil || !ok || len(seq) != 1 {
		t.Errorf("pre_tokenizers: %#v %v, want a Sequence of 1", p, err)
	}
	if _, err := processors.Parse(json.RawMessage(`{"type": "Sequence", "processors": [{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true},
		{"type": "RobertaProcessing", "sep": ["</s>", 2], "cls": ["<s>", 0], "trim_offsets": true, "add_prefix_space": true}]}`)); err != nil {
		t.Errorf("post_processor Sequence: %v", err)
	}
	for _, c := range []struct {
		what, json string
		parse      func(json.RawMessage) error
	}{
		{"Sequence normalizer", `{"type": "Sequence", "normalizers": [], "extra": 1}`, func(r json.RawMessage) error { _, err := normalizers.Parse(r); return err }},
		{"Sequence pre_tokenizer", `{"type": "Sequence", "pretokenizers": [], "extra": 1}`, func(r json.RawMessage) error { _, err := pretokenizers.Parse(r); return err }},
		{"Sequence post_processor", `{"type": "Sequence", "processors": [], "extra": 1}`, func(r json.RawMessage) error { _, err := processors.Parse(r); return err }},
	} {
		err := c.parse(json.RawMessage(c.json))
		if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), c.what+` has the option "extra"`) {
			t.Errorf("%s with an extra field: %v", c.what, err)
		}
	}
}
