package modeldir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// convertRoberta is RobertaConverter: vocab.json and merges.txt as a
// byte-level BPE model, the ByteLevel pre-tokenizer with add_prefix_space,
// and RobertaProcessing with the cls and sep tokens, add_prefix_space and
// trim_offsets (RobertaTokenizerFast rebuilds the processor with the
// folder's values of both; defaults false and true).
func convertRoberta(dir string, c *slowConfig) ([]byte, []string, error) {
	vocabPath, mergesPath := filepath.Join(dir, "vocab.json"), filepath.Join(dir, "merges.txt")
	v, err := readVocabJSON(vocabPath)
	if err != nil {
		return nil, nil, err
	}
	merges, err := readMerges(mergesPath)
	if err != nil {
		return nil, nil, err
	}
	prefix, err := c.boolOpt("add_prefix_space", false)
	if err != nil {
		return nil, nil, err
	}
	trim, err := c.boolOpt("trim_offsets", true)
	if err != nil {
		return nil, nil, err
	}
	defaults := map[string]addedToken{
		"bos_token": flags("<s>", false), "eos_token": flags("</s>", false), "sep_token": flags("</s>", false),
		"cls_token": flags("<s>", false), "unk_token": flags("<unk>", false), "pad_token": flags("<pad>", false),
		"mask_token": flags("<mask>", true), // RobertaTokenizer: lstrip, so " <mask>" takes its space
	}
	toks := map[string]string{}
	for role, d := range defaults {
		toks[role] = c.token(role, d.Content)
	}
	// Only the tokens the processor frames a pair with must be in the
	// vocabulary; the others may be added past it.
	if err := requireTokens(vocabPath, v, c, map[string]string{"cls_token": toks["cls_token"], "sep_token": toks["sep_token"]}); err != nil {
		return nil, nil, err
	}
	cls, sep := toks["cls_token"], toks["sep_token"]
	p := parts{
		model: map[string]any{"type": "BPE", "dropout": nil, "unk_token": nil, "continuing_subword_prefix": "",
			"end_of_word_suffix": "", "fuse_unk": false, "byte_fallback": false, "vocab": v.ids, "merges": merges},
		preTokenizer: map[string]any{"type": "ByteLevel", "add_prefix_space": prefix, "trim_offsets": true, "use_regex": true},
		postProcessor: map[string]any{"type": "RobertaProcessing", "sep": []any{sep, v.ids[sep]}, "cls": []any{cls, v.ids[cls]},
			"trim_offsets": trim, "add_prefix_space": prefix},
		vocab: v,
	}
	raw, err := tokenizerJSON(p, c, defaults)
	return raw, []string{vocabPath, mergesPath}, err
}

// readVocabJSON reads vocab.json: token -> id.
func readVocabJSON(path string) (vocabulary, error) {
	v := vocabulary{}
	ok, err := readJSON(path, &v.ids)
	if err != nil {
		return v, err
	}
	if !ok {
		return v, fmt.Errorf("%w: %s is missing (a byte-level BPE tokenizer without tokenizer.json needs vocab.json and merges.txt)", ErrInput, path)
	}
	if len(v.ids) == 0 {
		return v, fmt.Errorf("%w: %s holds no tokens", ErrInput, path)
	}
	for tok, id := range v.ids {
		if id < 0 {
			return v, fmt.Errorf("%w: %s gives %q the id %d", ErrInput, path, tok, id)
		}
	}
	v.size = len(v.ids)
	return v, nil
}

// readMerges reads merges.txt as RobertaTokenizer does: the lines between
// the first (the "#version" header) and the last (empty after the final
// newline) are dropped unread, each other one split on whitespace into a
// pair.
func readMerges(path string) ([][2]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: read the BPE merges: %w", ErrInput, err)
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\r", "\n") // Python's universal newlines
	lines := strings.Split(text, "\n")
	if len(lines) < 2 {
		return nil, fmt.Errorf("%w: %s has no merges", ErrInput, path)
	}
	lines = lines[1 : len(lines)-1]
	out := make([][2]string, 0, len(lines))
	for i, l := range lines {
		f := strings.Fields(l)
		if len(f) != 2 {
			return nil, fmt.Errorf("%w: %s line %d is not a pair of tokens: %q", ErrInput, path, i+2, l)
		}
		out = append(out, [2]string{f[0], f[1]})
	}
	return out, nil
}
