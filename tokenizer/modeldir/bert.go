package modeldir

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// convertBert is BertConverter: vocab.txt as a WordPiece model,
// BertNormalizer with the slow tokenizer's basic-tokenizer options
// (do_lower_case, strip_accents, tokenize_chinese_chars; all off when
// do_basic_tokenize is false, as the slow tokenizer then has no basic
// tokenizer), BertPreTokenizer, and "[CLS] $A [SEP] $B [SEP]".
// never_split is read by the slow tokenizer only: the fast one transformers
// converts to ignores it, and so does this.
func convertBert(dir string, c *slowConfig) ([]byte, []string, error) {
	path := filepath.Join(dir, "vocab.txt")
	v, err := readVocabTxt(path)
	if err != nil {
		return nil, nil, err
	}
	basic, err := c.boolOpt("do_basic_tokenize", true)
	if err != nil {
		return nil, nil, err
	}
	lower, err := c.boolOpt("do_lower_case", true)
	if err != nil {
		return nil, nil, err
	}
	chinese, err := c.boolOpt("tokenize_chinese_chars", true)
	if err != nil {
		return nil, nil, err
	}
	accents, accentsSet, err := c.nullableBool("strip_accents")
	if err != nil {
		return nil, nil, err
	}
	var strip any // null: follow lowercase, as BertNormalizer does
	if accentsSet {
		strip = accents
	}
	if !basic {
		lower, chinese, strip = false, false, false
	}
	defaults := map[string]addedToken{
		"unk_token": flags("[UNK]", false), "sep_token": flags("[SEP]", false), "pad_token": flags("[PAD]", false),
		"cls_token": flags("[CLS]", false), "mask_token": flags("[MASK]", false),
	}
	toks := map[string]string{}
	for role, d := range defaults {
		toks[role] = c.token(role, d.Content)
	}
	if err := requireTokens(path, v, c, toks); err != nil {
		return nil, nil, err
	}
	cls, sep := toks["cls_token"], toks["sep_token"]
	p := parts{
		model: map[string]any{"type": "WordPiece", "unk_token": toks["unk_token"], "continuing_subword_prefix": "##",
			"max_input_chars_per_word": 100, "vocab": v.ids},
		normalizer: map[string]any{"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": chinese,
			"strip_accents": strip, "lowercase": lower},
		preTokenizer: map[string]any{"type": "BertPreTokenizer"},
		postProcessor: template([]any{special(cls, 0), seq("A", 0), special(sep, 0)},
			[]any{special(cls, 0), seq("A", 0), special(sep, 0), seq("B", 1), special(sep, 1)},
			map[string]int{cls: v.ids[cls], sep: v.ids[sep]}),
		vocab: v,
	}
	raw, err := tokenizerJSON(p, c, defaults)
	return raw, []string{path}, err
}

// readVocabTxt reads vocab.txt as transformers' load_vocab does: one token
// a line (Python's text mode: "\r\n" and "\r" end lines too), its id the
// line's index; a token written twice keeps the later index. The size is
// the number of distinct tokens, as tokenizers counts a vocab.
func readVocabTxt(path string) (vocabulary, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return vocabulary{}, fmt.Errorf("%w: read the BERT vocabulary: %w", ErrInput, err)
	}
	v := vocabulary{ids: map[string]int{}}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<24)
	sc.Split(splitNewline)
	for i := 0; sc.Scan(); i++ {
		v.ids[sc.Text()] = i
	}
	v.size = len(v.ids)
	if err := sc.Err(); err != nil {
		return vocabulary{}, fmt.Errorf("%w: %s: %w", ErrInput, path, err)
	}
	if len(v.ids) == 0 {
		return vocabulary{}, fmt.Errorf("%w: %s holds no tokens", ErrInput, path)
	}
	return v, nil
}

// splitNewline splits lines as Python's universal newlines do.
func splitNewline(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) || atEOF {
			if i+1 < len(data) && data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		return 0, nil, nil // a "\r" at the end of the buffer: wait for the next byte
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
