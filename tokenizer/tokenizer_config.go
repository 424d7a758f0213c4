package tokenizer

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

// setPadding reads tokenizer.json's padding: its pad id, and its direction,
// which transformers takes as the tokenizer's padding side.
func (t *Tokenizer) setPadding(raw json.RawMessage) error {
	for _, name := range []string{"[PAD]", "<pad>"} {
		if id, ok := t.tokenID(name); ok {
			t.pad = id
			break
		}
	}
	if hfjson.IsNull(raw) {
		return nil
	}
	var p struct {
		Direction string `json:"direction"`
		PadID     *int32 `json:"pad_id"`
	}
	if err := json.Unmarshal(raw, &p); err != nil {
		return fmt.Errorf("padding: %w", err)
	}
	if p.PadID != nil {
		t.pad = *p.PadID
	}
	return refuseLeft(p.Direction, "tokenizer.json's padding direction")
}

// refuseLeft refuses left padding: Hugging Face's question-answering
// pipeline then puts the context first (question_first is padding_side ==
// "right"), a layout qa-shard does not reproduce.
func refuseLeft(side, where string) error {
	if strings.EqualFold(side, "left") {
		return fmt.Errorf("%w: %s is %q: Hugging Face then puts the context before the question, which qa-shard does not reproduce (only right padding, question first, is supported)", ErrUnsupported, where, side)
	}
	return nil
}

// readSideConfigs reads tokenizer_config.json and special_tokens_map.json
// beside tokenizer.json when present: the cls token (whose positions stay
// unmasked, HF's cls_token_id), the pad token and the padding side. A token
// they name that the vocabulary lacks is an error.
func (t *Tokenizer) readSideConfigs(dir string) error {
	var cls, pad string
	for _, name := range []string{"special_tokens_map.json", "tokenizer_config.json"} {
		raw, err := os.ReadFile(filepath.Join(dir, name))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", name, err)
		}
		var c struct {
			CLS         json.RawMessage `json:"cls_token"`
			Pad         json.RawMessage `json:"pad_token"`
			PaddingSide string          `json:"padding_side"`
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return fmt.Errorf("decode %s: %w", name, err)
		}
		if err := refuseLeft(c.PaddingSide, name+"'s padding_side"); err != nil {
			return err
		}
		// tokenizer_config.json wins, as transformers reads it last.
		if s := tokenContent(c.CLS); s != "" {
			cls = s
		}
		if s := tokenContent(c.Pad); s != "" {
			pad = s
		}
		if cls != "" {
			id, ok := t.tokenID(cls)
			if !ok {
				return fmt.Errorf("%s names the cls token %q, which is not in tokenizer.json's vocabulary", name, cls)
			}
			t.tpl.CLS, t.tpl.HasCLS = id, true
		}
		if pad != "" {
			if id, ok := t.tokenID(pad); ok {
				t.pad = id
			}
		}
	}
	return nil
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
