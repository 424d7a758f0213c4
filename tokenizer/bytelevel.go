package tokenizer

import "encoding/json"

// parseByteLevel is not written yet: ByteLevel is refused.
func parseByteLevel(raw json.RawMessage) (preTokenizer, error) {
	return nil, unsupported("preTokenizer", "ByteLevel", "the components listed in the README")
}
