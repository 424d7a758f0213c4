package tokenizer

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
