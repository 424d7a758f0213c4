package modeldir

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"qa-shard/tokenizer"
	"qa-shard/tokenizer/mecab"
)

// Options are what a folder's tokenizer may need from outside it: for a
// MeCab tokenizer, libmecab and the dictionary folder.
type Options struct {
	// MecabLib is libmecab's path ("" for the dynamic loader's search).
	MecabLib string
	// MecabDicdir is the dictionary folder to use instead of searching
	// for the one the model names; it must still be that dictionary.
	MecabDicdir string
}

// EnvOptions are the Options QA_SHARD_MECAB_LIB and QA_SHARD_MECAB_DICDIR
// set.
func EnvOptions() Options {
	return Options{MecabLib: os.Getenv("QA_SHARD_MECAB_LIB"), MecabDicdir: os.Getenv("QA_SHARD_MECAB_DICDIR")}
}

// FlagOptions are the --mecab-lib and --mecab-dicdir flags (lib, dicdir)
// over EnvOptions: a flag that is set wins over its variable.
func FlagOptions(lib, dicdir string) Options {
	o := EnvOptions()
	if lib != "" {
		o.MecabLib = lib
	}
	if dicdir != "" {
		o.MecabDicdir = dicdir
	}
	return o
}

// Mecab says which MeCab a tokenizer runs on (Origin.Mecab).
type Mecab struct {
	Library    string            `json:"library"`
	Version    string            `json:"version"`
	Dictionary string            `json:"dictionary"` // what it is, when known
	Dir        string            `json:"dicdir"`
	Found      string            `json:"found"` // how the folder was found
	Args       []string          `json:"args"`
	Print      mecab.Fingerprint `json:"fingerprint"`
}

func (m Mecab) String() string {
	what := m.Dictionary
	if what == "" {
		what = "a dictionary qa-shard has not identified"
	}
	return fmt.Sprintf("MeCab %s (%s) with %s (%s, %s; %s)", m.Version, m.Library, what, m.Dir, m.Found, m.Print)
}

// wordTokenizers and subwordTokenizers are BertJapaneseTokenizer's
// choices, and what becomes of each here.
var (
	refusedWords    = map[string]string{"sudachi": "SudachiPy", "jumanpp": "Juman++"}
	refusedSubwords = map[string]string{"sentencepiece": "a SentencePiece model"}
)

// openJapanese reads a BertJapaneseTokenizer folder: vocab.txt as the
// WordPiece vocabulary (the same as BertConverter's, with every added token
// matched in the raw text as the slow tokenizer does) under the word and
// subword tokenizers tokenizer_config.json names.
func openJapanese(dir string, c *slowConfig, o Options) (*tokenizer.Tokenizer, Origin, error) {
	cfgFile := filepath.Join(dir, "tokenizer_config.json")
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s: "+format, append([]any{ErrInput, cfgFile}, a...)...)
	}
	wordType, subType := "basic", "wordpiece"
	for key, p := range map[string]*string{"word_tokenizer_type": &wordType, "subword_tokenizer_type": &subType} {
		if raw, ok := c.opts[key]; ok && !isNull(raw) {
			if err := json.Unmarshal(raw, p); err != nil {
				return nil, Origin{}, bad("%s is %s, not a string", key, raw)
			}
		}
	}
	if what, ok := refusedWords[wordType]; ok {
		return nil, Origin{}, fmt.Errorf("%w: %s: word_tokenizer_type %q splits words with %s, which qa-shard does not run; it runs MeCab (\"mecab\") and BERT's basic split (\"basic\")",
			tokenizer.ErrUnsupported, cfgFile, wordType, what)
	}
	if wordType != "mecab" && wordType != "basic" {
		return nil, Origin{}, bad("word_tokenizer_type %q is none of transformers' (basic, mecab, sudachi, jumanpp)", wordType)
	}
	if what, ok := refusedSubwords[subType]; ok {
		return nil, Origin{}, fmt.Errorf("%w: %s: subword_tokenizer_type %q cuts words with %s, which qa-shard does not read for BertJapaneseTokenizer; it reads \"wordpiece\" and \"character\"",
			tokenizer.ErrUnsupported, cfgFile, subType, what)
	}
	if subType != "wordpiece" && subType != "character" {
		return nil, Origin{}, bad("subword_tokenizer_type %q is none of transformers' (wordpiece, character, sentencepiece)", subType)
	}
	for _, key := range []string{"do_word_tokenize", "do_subword_tokenize"} {
		on, err := c.boolOpt(key, true)
		if err != nil {
			return nil, Origin{}, err
		}
		if !on {
			return nil, Origin{}, fmt.Errorf("%w: %s: %s false is not supported: qa-shard runs both the word and the subword tokenizer", tokenizer.ErrUnsupported, cfgFile, key)
		}
	}
	lower, err := c.boolOpt("do_lower_case", false) // BertJapaneseTokenizer's default
	if err != nil {
		return nil, Origin{}, err
	}
	never, err := c.strings("never_split")
	if err != nil {
		return nil, Origin{}, bad("never_split: %w", err)
	}
	raw, files, err := convertBert(dir, c)
	if err != nil {
		return nil, Origin{}, err
	}
	if raw, err = rawAddedTokens(raw); err != nil {
		return nil, Origin{}, err
	}
	w := tokenizer.Words{Lowercase: lower, NeverSplit: never, Character: subType == "character"}
	origin := Origin{Files: append(files, c.files...), Converter: "BertJapaneseTokenizer", Class: c.class}
	if wordType == "mecab" {
		m, tagger, nfkc, err := openMecab(cfgFile, c, o)
		if err != nil {
			return nil, Origin{}, err
		}
		w.Splitter, w.NFKC = tagger, nfkc
		origin.Mecab = &m
		norm := "none"
		if nfkc {
			norm = "NFKC"
		}
		w.Components = append(w.Components, "normalizer: "+norm+lowerNote(lower), "word_tokenizer: "+m.String())
	} else {
		w.Components = append(w.Components, "normalizer: BasicTokenizer (NFC"+lowerNote(lower)+")", "word_tokenizer: BasicTokenizer (whitespace and punctuation)")
	}
	if w.Character {
		w.Components = append(w.Components, "subword_tokenizer: CharacterTokenizer (NFKC)")
	} else {
		w.Components = append(w.Components, "subword_tokenizer: WordPiece")
	}
	tk, err := tokenizer.FromJSONWords(raw, dir, "converted from "+strings.Join(files, ", "), w)
	if err != nil {
		return nil, Origin{}, err
	}
	return tk, origin, nil
}

func lowerNote(lower bool) string {
	if lower {
		return ", lowercase"
	}
	return ""
}

// rawAddedTokens marks every added token of a converted tokenizer.json as
// matched in the raw text: the slow tokenizer's trie finds them all before
// any normalization.
func rawAddedTokens(raw []byte) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("read the converted tokenizer.json: %w", err)
	}
	var added []map[string]any
	if err := json.Unmarshal(m["added_tokens"], &added); err != nil {
		return nil, fmt.Errorf("read the converted tokenizer.json: %w", err)
	}
	for _, a := range added {
		a["normalized"] = false
	}
	var err error
	if m["added_tokens"], err = json.Marshal(added); err != nil {
		return nil, fmt.Errorf("write the converted tokenizer.json: %w", err)
	}
	m["normalizer"], m["pre_tokenizer"] = json.RawMessage("null"), json.RawMessage("null")
	out, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("write the converted tokenizer.json: %w", err)
	}
	return out, nil
}

// mecabKwargs are MecabTokenizer's options.
type mecabKwargs struct {
	NormalizeText *bool           `json:"normalize_text"`
	Dic           json.RawMessage `json:"mecab_dic"`
	Option        *string         `json:"mecab_option"`
}

// openMecab loads libmecab and the dictionary mecab_kwargs names, and
// checks that it is that dictionary.
func openMecab(cfgFile string, c *slowConfig, o Options) (Mecab, *mecab.Tagger, bool, error) {
	var kw mecabKwargs
	dicName, named := "ipadic", true // MecabTokenizer's default
	if raw, ok := c.opts["mecab_kwargs"]; ok && !isNull(raw) {
		var keys map[string]json.RawMessage
		if err := json.Unmarshal(raw, &keys); err != nil {
			return Mecab{}, nil, false, fmt.Errorf("%w: %s: mecab_kwargs is not an object: %w", ErrInput, cfgFile, err)
		}
		for k := range keys {
			if !slices.Contains([]string{"normalize_text", "mecab_dic", "mecab_option"}, k) {
				return Mecab{}, nil, false, fmt.Errorf("%w: %s: mecab_kwargs.%s is not an option of MecabTokenizer (normalize_text, mecab_dic, mecab_option)", ErrInput, cfgFile, k)
			}
		}
		if err := json.Unmarshal(raw, &kw); err != nil {
			return Mecab{}, nil, false, fmt.Errorf("%w: %s: mecab_kwargs: %w", ErrInput, cfgFile, err)
		}
		if d, ok := keys["mecab_dic"]; ok {
			if isNull(d) {
				named = false
			} else if err := json.Unmarshal(d, &dicName); err != nil {
				return Mecab{}, nil, false, fmt.Errorf("%w: %s: mecab_kwargs.mecab_dic is %s, not a name or null", ErrInput, cfgFile, d)
			}
		}
	}
	nfkc := kw.NormalizeText == nil || *kw.NormalizeText
	var option []string
	if kw.Option != nil {
		var err error
		if option, err = shellSplit(*kw.Option); err != nil {
			return Mecab{}, nil, false, fmt.Errorf("%w: %s: mecab_kwargs.mecab_option: %w", ErrInput, cfgFile, err)
		}
	}
	// The dictionary is looked for whether the library loads or not, so
	// that one message names everything missing.
	var known mecab.Known
	var loc mecab.Location
	var dicErr error
	if named {
		var ok bool
		if known, ok = mecab.KnownDictionary(dicName); !ok {
			return Mecab{}, nil, false, fmt.Errorf("%w: %s: mecab_kwargs.mecab_dic %q is none of transformers' (ipadic, unidic_lite, unidic, or null with the dictionary in mecab_option)", ErrInput, cfgFile, dicName)
		}
		loc, dicErr = mecab.FindDictionary(known, o.MecabDicdir)
	}
	lib, libErr := mecab.Load(o.MecabLib)
	if libErr != nil {
		libErr = fmt.Errorf("%w; the model's tokenizer (BertJapaneseTokenizer with word_tokenizer_type mecab) needs MeCab: install libmecab2 (Debian and Ubuntu: apt-get install libmecab2; macOS: brew install mecab) or pass the library with --mecab-lib PATH or QA_SHARD_MECAB_LIB", libErr)
	}
	switch {
	case dicErr != nil && libErr != nil:
		return Mecab{}, nil, false, fmt.Errorf("%w: %w; and %w", ErrInput, dicErr, libErr)
	case dicErr != nil:
		return Mecab{}, nil, false, fmt.Errorf("%w: %w", ErrInput, dicErr)
	case libErr != nil:
		return Mecab{}, nil, false, fmt.Errorf("%w: %w", ErrInput, libErr)
	}
	m := Mecab{Library: lib.Path, Version: lib.Version()}
	var args []string
	switch {
	case named:
		args = mecab.Args(loc.Dir, option)
		m.Dir, m.Found = loc.Dir, loc.How
	case o.MecabDicdir != "":
		args = mecab.Args(o.MecabDicdir, option)
		m.Dir, m.Found = o.MecabDicdir, "given (mecab_dic is null)"
	default:
		// mecab_dic null: MeCab's own choice, from mecab_option (-d) or
		// its mecabrc, as fugashi's GenericTagger makes it.
		args = option
		m.Found = "mecab_option and mecabrc (mecab_dic is null)"
	}
	tagger, err := lib.NewTagger(args)
	if err != nil {
		return Mecab{}, nil, false, fmt.Errorf("%w: %w", ErrInput, err)
	}
	m.Args, m.Print = tagger.Args(), tagger.Print()
	m.Dictionary, _ = mecab.Identify(m.Print)
	if m.Dir == "" && len(tagger.Dictionaries()) > 0 {
		m.Dir = filepath.Dir(tagger.Dictionaries()[0].Filename)
	}
	if named {
		note, err := mecab.Check(known, tagger, loc)
		if err != nil {
			return Mecab{}, nil, false, fmt.Errorf("%w: %w", ErrInput, err)
		}
		if note != "" {
			m.Dictionary = note
		}
	}
	if !strings.EqualFold(m.Print.Charset, "UTF-8") && !strings.EqualFold(m.Print.Charset, "UTF8") {
		return Mecab{}, nil, false, fmt.Errorf("%w: the MeCab dictionary in %s is in %s: qa-shard gives MeCab UTF-8 text, so use the dictionary's UTF-8 build (Debian: mecab-ipadic-utf8)", ErrInput, m.Dir, m.Print.Charset)
	}
	return m, tagger, nfkc, nil
}

// strings reads an option that is a list of strings (null or absent:
// none).
func (c *slowConfig) strings(key string) ([]string, error) {
	raw, ok := c.opts[key]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var out []string
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%s is not a list of strings", raw)
	}
	return out, nil
}

// shellSplit splits a command line as Python's shlex.split does (POSIX
// mode), as fugashi splits mecab_option.
func shellSplit(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch ch {
		case '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("no closing quotation")
			}
			cur.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\\\"$`\n", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("no closing quotation")
			}
			inWord = true
		case '\\':
			if i+1 >= len(s) {
				return nil, errors.New("no escaped character")
			}
			i++
			cur.WriteByte(s[i])
			inWord = true
		case ' ', '\t', '\n', '\r':
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
