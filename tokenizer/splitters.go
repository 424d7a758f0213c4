package tokenizer

import "encoding/json"

// parseSplitter is not written yet: these pre-tokenizers are refused.
func parseSplitter(typ string, raw json.RawMessage) (preTokenizer, error) {
	return nil, unsupported("pre_tokenizer", typ, supportedPreTok)
}
