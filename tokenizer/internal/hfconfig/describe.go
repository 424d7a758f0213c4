package hfconfig

import (
	"encoding/json"
	"fmt"
	"strings"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// Describe names f's components as tokenizer.json calls them, in
// pipeline order, for people (tokenizer.Tokenizer.Components); model is
// the model read from f (its kind is decided by shape when the file
// names none).
func Describe(f File, model stage.Model) []string {
	return []string{
		"normalizer: " + componentTree(f.Normalizer, "normalizers"),
		"pre_tokenizer: " + componentTree(f.PreTokenizer, "pretokenizers"),
		fmt.Sprintf("model: %s (%d tokens)", model.Kind(), model.Size()),
		"post_processor: " + componentTree(f.PostProcessor, "processors"),
	}
}

// componentTree is a component's type, with a Sequence's members in
// brackets (their list under key).
func componentTree(raw json.RawMessage, key string) string {
	if hfjson.IsNull(raw) {
		return "none"
	}
	typ, err := hfjson.TypeOf(raw)
	if err != nil {
		return "?"
	}
	if members, err := hfjson.SequenceMembers(raw, key, "Sequence"); typ == "Sequence" && err == nil {
		parts := make([]string, len(members))
		for i, m := range members {
			parts[i] = componentTree(m, key)
		}
		return "Sequence[" + strings.Join(parts, ", ") + "]"
	}
	return typ
}
