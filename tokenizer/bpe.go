package tokenizer

import "encoding/json"

// parseBPE is not written yet: BPE is refused.
func parseBPE(raw json.RawMessage) (model, error) {
	return nil, unsupported("model", "BPE", "the components listed in the README")
}
