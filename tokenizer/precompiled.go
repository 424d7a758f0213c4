package tokenizer

import "encoding/json"

// parsePrecompiled is not written yet: Precompiled is refused.
func parsePrecompiled(raw json.RawMessage) (normalizer, error) {
	return nil, unsupported("normalizer", "Precompiled", "the components listed in the README")
}
