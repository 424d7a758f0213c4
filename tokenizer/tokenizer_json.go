package tokenizer

import (
	"encoding/json"

	"qa-shard/tokenizer/internal/added"
	"qa-shard/tokenizer/internal/hfjson"
)

// ErrUnsupported marks a tokenizer.json that uses a component or an option
// this package does not reproduce exactly; it is refused, never
// approximated.
var ErrUnsupported = hfjson.ErrUnsupported

// fileConfig is the top level of tokenizer.json; every component stays raw
// until its own parser reads it.
type fileConfig struct {
	Version       string          `json:"version"`
	Truncation    json.RawMessage `json:"truncation"`
	Padding       json.RawMessage `json:"padding"`
	AddedTokens   []added.Config  `json:"added_tokens"`
	Normalizer    json.RawMessage `json:"normalizer"`
	PreTokenizer  json.RawMessage `json:"pre_tokenizer"`
	Model         json.RawMessage `json:"model"`
	PostProcessor json.RawMessage `json:"post_processor"`
	Decoder       json.RawMessage `json:"decoder"`
}
