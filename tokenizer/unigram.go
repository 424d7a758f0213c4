package tokenizer

import "encoding/json"

// parseUnigram is not written yet: Unigram is refused.
func parseUnigram(raw json.RawMessage) (model, error) {
	return nil, unsupported("model", "Unigram", "the components listed in the README")
}
