package main

import (
	"fmt"
	"slices"
	"strconv"
)

// sorted turns a map into an object with sorted keys, as transformers'
// save_pretrained writes its JSON files (json.dumps(sort_keys=True)).
func sorted(m map[string]any) *obj {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := &obj{}
	for _, k := range keys {
		out.set(k, m[k])
	}
	return out
}

// tokenDict is an AddedToken as save_pretrained writes it.
func tokenDict(a addedTok) *obj {
	return o("content", a.Content, "lstrip", a.Lstrip, "normalized", a.Normalized,
		"rstrip", false, "single_word", false)
}

func (l *layout) roleList() [][2]string {
	r := l.Roles
	return [][2]string{{"bos_token", r.Bos}, {"cls_token", r.Cls}, {"eos_token", r.Eos},
		{"mask_token", r.Mask}, {"pad_token", r.Pad}, {"sep_token", r.Sep}, {"unk_token", r.Unk}}
}

func (l *layout) addedByContent(s string) (addedTok, error) {
	for _, a := range l.Added {
		if a.Content == s {
			return a, nil
		}
	}
	return addedTok{}, fmt.Errorf("special token %q is not an added token", s)
}

// specialTokensMap is special_tokens_map.json: each role with its token's
// flags, as transformers (4.34 and later) saves it.
func (l *layout) specialTokensMap() (*obj, error) {
	m := map[string]any{}
	for _, kv := range l.roleList() {
		if kv[1] == "" {
			continue
		}
		a, err := l.addedByContent(kv[1])
		if err != nil {
			return nil, err
		}
		m[kv[0]] = tokenDict(a)
	}
	return sorted(m), nil
}

// tokenizerConfig is tokenizer_config.json: the roles as plain strings, the
// added tokens by id (added_tokens_decoder), the slow class's own options,
// model_max_length 512 and right padding.
func (l *layout) tokenizerConfig() (*obj, error) {
	m := map[string]any{
		"clean_up_tokenization_spaces": false,
		"model_max_length":             512,
		"padding_side":                 "right",
		"tokenizer_class":              l.Class,
	}
	for k, v := range l.Extra {
		m[k] = v
	}
	for _, kv := range l.roleList() {
		if kv[1] == "" {
			continue
		}
		if _, err := l.addedByContent(kv[1]); err != nil {
			return nil, err
		}
		m[kv[0]] = kv[1]
	}
	dec := map[string]any{}
	for _, a := range l.Added {
		d := tokenDict(a)
		d.set("special", a.Special)
		dec[strconv.Itoa(a.ID)] = d
	}
	m["added_tokens_decoder"] = sorted(dec)
	return sorted(m), nil
}
