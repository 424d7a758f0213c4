package tokenizer

import "encoding/json"

// parseMetaspace is not written yet: Metaspace is refused.
func parseMetaspace(raw json.RawMessage) (preTokenizer, error) {
	return nil, unsupported("preTokenizer", "Metaspace", "the components listed in the README")
}
