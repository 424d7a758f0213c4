package modeldir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// addedToken is transformers' AddedToken as its configuration files hold
// it: a string, or an object with its flags.
type addedToken struct {
	Content    string `json:"content"`
	SingleWord bool   `json:"single_word"`
	Lstrip     bool   `json:"lstrip"`
	Rstrip     bool   `json:"rstrip"`
	Normalized *bool  `json:"normalized"`
	Special    bool   `json:"special"`
	// wrapped: the tokenizer class holds it as an AddedToken, not a string.
	wrapped bool
	// from is the file that gave the token an id (added_tokens.json), ""
	// for none; index is that id.
	from  string
	index int
}

// roles are the special-token attributes of a slow tokenizer, in the order
// transformers lists them (SPECIAL_TOKENS_ATTRIBUTES), which is the order
// the fast tokenizer adds them in.
var roles = []string{"bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token"}

// slowConfig is what the slow tokenizer's constructor receives:
// tokenizer_config.json's options, its special tokens (special_tokens_map.json
// over tokenizer_config.json over the class's defaults) and the added tokens
// of added_tokens_decoder.
type slowConfig struct {
	class, classFrom string
	files            []string                   // the configuration files read
	opts             map[string]json.RawMessage // tokenizer_config.json
	specials         map[string]addedToken      // role -> token, as set by the files
	additional       []addedToken               // additional_special_tokens
	decoder          []addedToken               // added_tokens_decoder (or added_tokens.json), by index
}

// readConfigs reads tokenizer_config.json, special_tokens_map.json,
// added_tokens.json (readAddedTokensFile) and,
// for the class when tokenizer_config.json does not name it, config.json's
// model_type. A file that is present but not valid JSON is an error naming
// it.
func readConfigs(dir string) (*slowConfig, error) {
	c := &slowConfig{opts: map[string]json.RawMessage{}, specials: map[string]addedToken{}}
	tcPath := filepath.Join(dir, "tokenizer_config.json")
	ok, err := readJSON(tcPath, &c.opts)
	if err != nil {
		return nil, err
	}
	if ok {
		c.files = append(c.files, tcPath)
		if err := c.readTokens(tcPath, c.opts); err != nil {
			return nil, err
		}
		if raw, ok := c.opts["added_tokens_decoder"]; ok && !isNull(raw) {
			var dec map[string]addedToken
			if err := json.Unmarshal(raw, &dec); err != nil {
				return nil, fmt.Errorf("%w: %s: added_tokens_decoder: %w", ErrInput, tcPath, err)
			}
			idx := make([]int, 0, len(dec))
			for k := range dec {
				i, err := strconv.Atoi(k)
				if err != nil {
					return nil, fmt.Errorf("%w: %s: added_tokens_decoder key %q is not an index", ErrInput, tcPath, k)
				}
				idx = append(idx, i)
			}
			slices.Sort(idx)
			for _, i := range idx {
				c.decoder = append(c.decoder, dec[strconv.Itoa(i)])
			}
		}
		if s, ok := c.str("tokenizer_class"); ok && s != "" {
			c.class, c.classFrom = strings.TrimSuffix(s, "Fast"), "tokenizer_config.json's tokenizer_class"
		}
	}
	stmPath := filepath.Join(dir, "special_tokens_map.json")
	var stm map[string]json.RawMessage
	if ok, err := readJSON(stmPath, &stm); err != nil {
		return nil, err
	} else if ok {
		c.files = append(c.files, stmPath)
		// special_tokens_map.json is read after tokenizer_config.json and
		// overrides it, as from_pretrained does.
		if err := c.readTokens(stmPath, stm); err != nil {
			return nil, err
		}
	}
	if err := c.readAddedTokensFile(dir); err != nil {
		return nil, err
	}
	if c.class == "" {
		cfgPath := filepath.Join(dir, "config.json")
		var mc struct {
			ModelType string `json:"model_type"`
		}
		if ok, err := readJSON(cfgPath, &mc); err != nil {
			return nil, err
		} else if ok && mc.ModelType != "" {
			c.files = append(c.files, cfgPath)
			c.class, c.classFrom = modelTypes[mc.ModelType], "config.json's model_type "+strconv.Quote(mc.ModelType)
			if c.class == "" {
				c.class = "the tokenizer of model_type " + strconv.Quote(mc.ModelType)
			}
		}
	}
	return c, nil
}

// modelTypes is transformers' TOKENIZER_MAPPING for the model types whose
// slow tokenizer qa-shard converts.
var modelTypes = map[string]string{
	"bert": "BertTokenizer", "distilbert": "DistilBertTokenizer", "electra": "ElectraTokenizer",
	"roberta": "RobertaTokenizer", "xlm-roberta": "XLMRobertaTokenizer", "camembert": "CamembertTokenizer",
	"albert": "AlbertTokenizer", "deberta-v2": "DebertaV2Tokenizer",
}

// readTokens takes the special tokens and additional_special_tokens a file
// sets.
func (c *slowConfig) readTokens(path string, m map[string]json.RawMessage) error {
	for _, role := range roles {
		raw, ok := m[role]
		if !ok || isNull(raw) {
			continue
		}
		t, err := parseToken(raw)
		if err != nil {
			return fmt.Errorf("%w: %s: %s: %w", ErrInput, path, role, err)
		}
		c.specials[role] = t
	}
	if raw, ok := m["additional_special_tokens"]; ok && !isNull(raw) {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("%w: %s: additional_special_tokens: %w", ErrInput, path, err)
		}
		c.additional = c.additional[:0]
		for _, r := range list {
			t, err := parseToken(r)
			if err != nil {
				return fmt.Errorf("%w: %s: additional_special_tokens: %w", ErrInput, path, err)
			}
			c.additional = append(c.additional, t)
		}
	}
	return nil
}

func parseToken(raw json.RawMessage) (addedToken, error) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return addedToken{Content: s}, nil
	}
	var t addedToken
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, err
	}
	if t.Content == "" {
		return t, errors.New("a token object without content")
	}
	return t, nil
}

// str, boolOpt and flag read one option of tokenizer_config.json.
func (c *slowConfig) str(key string) (string, bool) {
	var s string
	raw, ok := c.opts[key]
	if !ok || isNull(raw) || json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return s, true
}

// boolOpt is a bool option: def when absent or null; an error when it is
// not a bool.
func (c *slowConfig) boolOpt(key string, def bool) (bool, error) {
	v, set, err := c.nullableBool(key)
	if !set {
		return def, err
	}
	return v, err
}

// nullableBool reads an option that may be null (set false).
func (c *slowConfig) nullableBool(key string) (v, set bool, err error) {
	raw, ok := c.opts[key]
	if !ok || isNull(raw) {
		return false, false, nil
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return false, false, fmt.Errorf("%w: tokenizer_config.json: %s is %s, not true or false", ErrInput, key, raw)
	}
	return v, true, nil
}

// token is the special token of a role: the files' or the class default
// (def; "" for none).
func (c *slowConfig) token(role, def string) string {
	if t, ok := c.specials[role]; ok {
		return t.Content
	}
	return def
}

// readJSON decodes path into v; false when the file does not exist.
func readJSON(path string, v any) (bool, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("%w: read %s: %w", ErrInput, path, err)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return false, fmt.Errorf("%w: %s is not valid JSON: %w", ErrInput, path, err)
	}
	return true, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || string(t) == "null"
}
