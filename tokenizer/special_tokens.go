package tokenizer

import (
	"encoding/json"
	"fmt"

	"qa-shard/tokenizer/internal/hfconfig"
)

// setPadding sets the pad token: [PAD] or <pad> when the vocabulary has
// one, unless tokenizer.json's padding names its id (raw); left padding is
// refused.
func (t *Tokenizer) setPadding(raw json.RawMessage) error {
	for _, name := range []string{"[PAD]", "<pad>"} {
		if id, ok := t.tokenID(name); ok {
			t.pad = id
			break
		}
	}
	id, err := hfconfig.Padding(raw)
	if id != nil {
		t.pad = *id
	}
	return err
}

// readSideConfigs reads tokenizer_config.json and special_tokens_map.json
// in dir when present: the cls token (whose positions stay unmasked, HF's
// cls_token_id), the pad token and the padding side. A cls token they name
// that the vocabulary lacks is an error.
func (t *Tokenizer) readSideConfigs(dir string) error {
	sides, err := hfconfig.SideConfigs(dir)
	if err != nil {
		return err
	}
	var cls, pad string
	for _, s := range sides {
		// tokenizer_config.json wins, as transformers reads it last.
		if s.CLS != "" {
			cls = s.CLS
		}
		if s.Pad != "" {
			pad = s.Pad
		}
		if cls != "" {
			id, ok := t.tokenID(cls)
			if !ok {
				return fmt.Errorf("%s names the cls token %q, which is not in tokenizer.json's vocabulary", s.Name, cls)
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
