package tokenizer

import (
	"encoding/json"
	"fmt"
	"strings"

	"qa-shard/tokenizer/internal/hfjson"
	"qa-shard/tokenizer/internal/stage"
)

// Components names the tokenizer's parts as tokenizer.json calls them, in
// pipeline order: "normalizer: BertNormalizer", "pre_tokenizer:
// Sequence[WhitespaceSplit, Metaspace]", "model: WordPiece (30522 tokens)",
// "post_processor: TemplateProcessing"; a part the file leaves out is
// "none". For people checking a model folder (qa-shard tokenize).
func (t *Tokenizer) Components() []string { return t.components }

// Token is the vocabulary's text of id (an added token's content for an
// added token), or "" for an id outside it.
func (t *Tokenizer) Token(id int32) string {
	if s, ok := t.addedByID[id]; ok {
		return s
	}
	s, _ := t.model.IDToToken(id)
	return s
}

// describe lists cfg's components for Components; m is the model parsed
// from it (its kind is decided by shape when the file names none).
func describe(cfg fileConfig, m stage.Model) []string {
	return []string{
		"normalizer: " + componentTree(cfg.Normalizer, "normalizers"),
		"pre_tokenizer: " + componentTree(cfg.PreTokenizer, "pretokenizers"),
		fmt.Sprintf("model: %s (%d tokens)", m.Kind(), m.Size()),
		"post_processor: " + componentTree(cfg.PostProcessor, "processors"),
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
