package hfconfig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/tokenizer/internal/hfjson"
)

// Padding reads tokenizer.json's padding: its pad id when it names one
// (nil: none), and its direction, which transformers takes as the
// tokenizer's padding side.
func Padding(raw json.RawMessage) (*int32, error) {
	if hfjson.IsNull(raw) {
		return nil, nil
	}
	var p struct {
		Direction string `json:"direction"`
		PadID     *int32 `json:"pad_id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, fmt.Errorf("padding: %w", err)
	}
	return p.PadID, refuseLeft(p.Direction, "tokenizer.json's padding direction")
}

// refuseLeft refuses left padding: Hugging Face's question-answering
// pipeline then puts the context first (question_first is padding_side ==
// "right"), a layout qa-shard does not reproduce.
func refuseLeft(side, where string) error {
	if strings.EqualFold(side, "left") {
		return fmt.Errorf("%w: %s is %q: Hugging Face then puts the context before the question, which qa-shard does not reproduce (only right padding, question first, is supported)", hfjson.ErrUnsupported, where, side)
	}
	return nil
}

// Side is what one side config beside tokenizer.json says: the file's
// name and the cls and pad tokens it names ("": none).
type Side struct {
	Name, CLS, Pad string
}

// SideConfigs reads special_tokens_map.json and then tokenizer_config.json
// in dir, those present, in the order transformers reads them (the later
// wins); a left padding side is refused.
func SideConfigs(dir string) ([]Side, error) {
	var out []Side
	for _, name := range []string{"special_tokens_map.json", "tokenizer_config.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		var c struct {
			CLS         json.RawMessage `json:"cls_token"`
			Pad         json.RawMessage `json:"pad_token"`
			PaddingSide string          `json:"padding_side"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return nil, fmt.Errorf("decode %s: %w", name, err)
		}
		if err := refuseLeft(c.PaddingSide, name+"'s padding_side"); err != nil {
			return nil, err
		}
		out = append(out, Side{Name: name, CLS: tokenContent(c.CLS), Pad: tokenContent(c.Pad)})
	}
	return out, nil
}

// tokenContent reads a special token given as a string or as an AddedToken
// object ({"content": ...}).
func tokenContent(raw json.RawMessage) string {
	if hfjson.IsNull(raw) {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(raw, &o)
	return o.Content
}
