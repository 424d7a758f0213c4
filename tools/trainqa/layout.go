package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qa-shard/internal/testing/testmodel"
	"qa-shard/qa"
	"qa-shard/tokenizer"
)

// layout is the sidecar JSON written next to a windows file (OUT.json):
// what train.py needs to know about the tokenizer and the model family
// instead of assuming BERT's ids. Windows files meant for one model must
// agree on it.
type layout struct {
	Format    int   `json:"format"`
	VocabSize int   `json:"vocab_size"`
	UNK       int32 `json:"unk"`
	CLS       int32 `json:"cls"`
	PAD       int32 `json:"pad"`
	// Specials are the ids the pair template puts around the question and
	// the context ([CLS], [SEP]; <s>, </s>), sorted.
	Specials []int32 `json:"specials"`
	// TokenTypes says whether the model takes token_type_ids (the family's
	// export has the input); without, train.py trains one type row and
	// feeds zeros, whatever the template's type ids.
	TokenTypes bool   `json:"token_types"`
	Family     string `json:"family"`
	MaxSeqLen  int    `json:"max_seq_len"`
	DocStride  int    `json:"doc_stride"`
	// QuestionWords names the first token of each question ("who"), to
	// label train.py's per-question accuracy.
	QuestionWords map[string]string `json:"question_words"`
}

// windowsFormat is the version of the windows file and its sidecar; the
// file starts with windowsMagic so that a file of another layout is refused.
const (
	windowsFormat = 2
	windowsMagic  = 0x32574151 // "QAW2" little-endian
)

// family returns the layout family by name: "bert" (with token types) or
// one of testmodel.Families.
func family(name string) (testmodel.Family, error) {
	if name == testmodel.BERT.Name {
		return testmodel.BERT, nil
	}
	var names []string
	for _, f := range testmodel.Families {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return testmodel.Family{}, fmt.Errorf("unknown family %q (want bert, %s)", name, strings.Join(names, ", "))
}

// newLayout reads the special ids off the tokenizer: its template, pad id
// and vocabulary size, and the unknown token from tokenizer.json.
func newLayout(tok *tokenizer.Tokenizer, tokPath string, f testmodel.Family, s qa.Settings) (*layout, error) {
	tpl := tok.Template()
	if !tpl.HasCLS {
		return nil, fmt.Errorf("%s: the tokenizer has no cls token to label windows without the answer", tokPath)
	}
	unk, err := unkID(tok, tokPath)
	if err != nil {
		return nil, err
	}
	var specials []int32
	for _, id := range slices.Concat(tpl.Before, tpl.Between, tpl.After) {
		if !slices.Contains(specials, id) {
			specials = append(specials, id)
		}
	}
	slices.Sort(specials)
	return &layout{Format: windowsFormat, VocabSize: tok.VocabSize(), UNK: unk, CLS: tpl.CLS, PAD: tok.PadID(),
		Specials: specials, TokenTypes: f.TokenTypes, Family: f.Name, MaxSeqLen: s.MaxSeqLen, DocStride: s.DocStride,
		QuestionWords: map[string]string{}}, nil
}

// unkID finds the unknown token's id: Unigram's model.unk_id, else the
// unk_token of special_tokens_map.json beside the file or of the model
// (WordPiece, BPE), looked up among the added tokens or encoded. tokPath
// may be a model folder: its tokenizer.json when it has one, else (a
// folder qa-shard converts or splits with MeCab) the unk_token of
// special_tokens_map.json or tokenizer_config.json, BERT's [UNK] when
// neither names one (transformers' default for the BERT tokenizers),
// looked up in the vocabulary.
func unkID(tok *tokenizer.Tokenizer, tokPath string) (int32, error) {
	if st, err := os.Stat(tokPath); err == nil && st.IsDir() {
		tj := filepath.Join(tokPath, "tokenizer.json")
		if _, err := os.Stat(tj); err != nil {
			return folderUnkID(tok, tokPath)
		}
		tokPath = tj
	}
	var file struct {
		Model struct {
			UnkToken *string `json:"unk_token"`
			UnkID    *int32  `json:"unk_id"`
		} `json:"model"`
		Added []struct {
			ID      int32  `json:"id"`
			Content string `json:"content"`
		} `json:"added_tokens"`
	}
	raw, err := os.ReadFile(tokPath)
	if err != nil {
		return 0, fmt.Errorf("unknown token: %w", err)
	}
	if err := json.Unmarshal(raw, &file); err != nil {
		return 0, fmt.Errorf("unknown token: %s: %w", tokPath, err)
	}
	if file.Model.UnkID != nil {
		return *file.Model.UnkID, nil
	}
	name := sideUnkToken(filepath.Join(filepath.Dir(tokPath), "special_tokens_map.json"))
	if name == "" && file.Model.UnkToken != nil {
		name = *file.Model.UnkToken
	}
	if name == "" {
		return 0, fmt.Errorf("%s: no unknown token (model.unk_id, model.unk_token or special_tokens_map.json's unk_token)", tokPath)
	}
	for _, a := range file.Added {
		if a.Content == name {
			return a.ID, nil
		}
	}
	if ids := tok.Encode(name).IDs; len(ids) == 1 {
		return ids[0], nil
	}
	return 0, fmt.Errorf("%s: unknown token %q is not one token", tokPath, name)
}

// folderUnkID is the unknown token of a model folder without
// tokenizer.json (see unkID).
func folderUnkID(tok *tokenizer.Tokenizer, dir string) (int32, error) {
	name := sideUnkToken(filepath.Join(dir, "special_tokens_map.json"))
	if name == "" {
		name = sideUnkToken(filepath.Join(dir, "tokenizer_config.json"))
	}
	if name == "" {
		name = "[UNK]"
	}
	for id := range int32(tok.VocabSize()) {
		if tok.Token(id) == name {
			return id, nil
		}
	}
	return 0, fmt.Errorf("%s: the unknown token %q is not in the vocabulary", dir, name)
}

// sideUnkToken is the unk_token of special_tokens_map.json or
// tokenizer_config.json (a string or an AddedToken object), or "" when the
// file or the key is missing.
func sideUnkToken(path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var m struct {
		Unk json.RawMessage `json:"unk_token"`
	}
	if json.Unmarshal(raw, &m) != nil || m.Unk == nil {
		return ""
	}
	var s string
	if json.Unmarshal(m.Unk, &s) == nil {
		return s
	}
	var obj struct {
		Content string `json:"content"`
	}
	_ = json.Unmarshal(m.Unk, &obj) // neither form: no content, ""
	return obj.Content
}

// nameQuestion records the first token of a question under its first word
// (a question without spaces, as Japanese ones are, under its first
// token's text).
func (l *layout) nameQuestion(tok *tokenizer.Tokenizer, q qa.Tokens, text string) {
	if q.Len() == 0 {
		return
	}
	word, _, spaced := strings.Cut(strings.TrimSpace(text), " ")
	if !spaced {
		word = tok.Token(q.IDs[0])
	}
	l.QuestionWords[fmt.Sprint(q.IDs[0])] = strings.ToLower(word)
}

func (l *layout) write(path string) error {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return fmt.Errorf("layout: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("layout: %w", err)
	}
	return nil
}
