package tokenizer

import "encoding/json"

// parseSimpleNormalizer is not written yet: these normalizers are refused.
func parseSimpleNormalizer(typ string, raw json.RawMessage) (normalizer, error) {
	return nil, unsupported("normalizer", typ, supportedNormalizer)
}
