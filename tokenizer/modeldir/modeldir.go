// Package modeldir reads the tokenizer of a model folder the way
// transformers' AutoTokenizer does: tokenizer.json as written when the
// folder has one, else the slow tokenizer's own files (vocab.txt,
// vocab.json + merges.txt, or a SentencePiece .model) converted into the tokenizer.json that transformers' convert_slow_tokenizer would build,
// with the options of tokenizer_config.json and special_tokens_map.json.
//
// Open is the one place that decides where a folder's tokenizer comes from
// (a tokenizer whose words another analyser splits, such as a MeCab
// Japanese BERT, plugs in there). The class that decides a conversion is
// tokenizer_config.json's tokenizer_class, else config.json's model_type,
// as AutoTokenizer reads them; nothing is guessed from a folder's name.
package modeldir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"qa-shard/internal/errkind"
	"qa-shard/tokenizer"
)

// ErrInput marks a folder whose tokenizer files are missing, unreadable or
// inconsistent (a configuration error the user fixes).
var ErrInput = errkind.NewInternal("tokenizer files")

// Origin says where a folder's tokenizer came from.
type Origin struct {
	// Files are the files read, in the order they were read.
	Files []string
	// Converter names the transformers converter applied ("" when
	// tokenizer.json was read as written).
	Converter string
	// Class is the slow tokenizer class a conversion followed.
	Class string
	// Mecab is the MeCab a Japanese BERT tokenizer splits words with (nil
	// for every other tokenizer).
	Mecab *Mecab
}

// Converted says whether the tokenizer was converted from slow files.
func (o Origin) Converted() bool { return o.Converter != "" }

// Path is the file that holds the vocabulary (what error messages about
// the tokenizer's ids name).
func (o Origin) Path() string {
	if len(o.Files) == 0 {
		return ""
	}
	return o.Files[0]
}

// Method says how the tokenizer was made, without naming its files (a
// log line gives those as a field).
func (o Origin) Method() string {
	switch {
	case !o.Converted():
		return "read as written"
	case o.Mecab != nil:
		return fmt.Sprintf("read as transformers' %s does, words split by %s", o.Class, o.Mecab)
	default:
		return fmt.Sprintf("converted as transformers' %s does (%s)", o.Converter, o.Class)
	}
}

func (o Origin) String() string {
	if !o.Converted() {
		return "read " + strings.Join(o.Files, ", ")
	}
	if o.Mecab != nil {
		return fmt.Sprintf("read %s as transformers' %s does, words split by %s", strings.Join(o.Files, ", "), o.Class, o.Mecab)
	}
	return fmt.Sprintf("converted from %s (%s, as transformers' %s does)", strings.Join(o.Files, ", "), o.Class, o.Converter)
}

// Open reads the tokenizer of the model folder dir, with the Options the
// environment sets (EnvOptions).
func Open(dir string) (*tokenizer.Tokenizer, Origin, error) {
	return OpenWith(dir, EnvOptions())
}

// OpenWith is Open with explicit Options.
func OpenWith(dir string, o Options) (*tokenizer.Tokenizer, Origin, error) {
	if err := CheckFolder(dir); err != nil {
		return nil, Origin{}, err
	}
	tj := filepath.Join(dir, "tokenizer.json")
	if exists(tj) {
		tk, err := tokenizer.Load(tj)
		return tk, Origin{Files: append([]string{tj}, sideFiles(dir)...)}, err
	}
	cfg, err := readConfigs(dir)
	if err != nil {
		return nil, Origin{}, err
	}
	if cfg.class == "BertJapaneseTokenizer" {
		return openJapanese(dir, cfg, o)
	}
	conv, ok := converters[cfg.class]
	if !ok {
		if cfg.class == "" {
			return nil, Origin{}, fmt.Errorf("%w: %s has no tokenizer.json, and neither tokenizer_config.json's tokenizer_class nor config.json's model_type says which tokenizer its files are for", ErrInput, dir)
		}
		return nil, Origin{}, fmt.Errorf("%w: %s has no tokenizer.json and its tokenizer class %s (%s) is not one qa-shard converts (it converts %s); save the tokenizer with transformers (tokenizer.save_pretrained) to write a tokenizer.json",
			tokenizer.ErrUnsupported, dir, cfg.class, cfg.classFrom, convertedClasses())
	}
	raw, files, err := conv.build(dir, cfg)
	if err != nil {
		return nil, Origin{}, err
	}
	origin := Origin{Files: append(files, cfg.files...), Converter: conv.name, Class: cfg.class}
	tk, err := tokenizer.FromJSON(raw, dir, "converted from "+strings.Join(files, ", "))
	if err != nil {
		return nil, Origin{}, err
	}
	return tk, origin, nil
}

// ErrNoFolder marks a model folder that does not exist or is not a folder.
var ErrNoFolder = errkind.NewUser("model folder not found")

// CheckFolder refuses a model folder that does not exist or is not a
// folder, naming the path, before anything in it is looked for.
func CheckFolder(dir string) error {
	st, err := os.Stat(dir)
	switch {
	case dir == "":
		return fmt.Errorf("%w: no folder given", ErrNoFolder)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s: give the model's folder, which holds its tokenizer's files (tokenizer.json, or vocab.txt, vocab.json and merges.txt, or a SentencePiece model)", ErrNoFolder, dir)
	case err != nil:
		return fmt.Errorf("%w: %s: %w", ErrNoFolder, dir, err)
	case !st.IsDir():
		return fmt.Errorf("%w: %s is a file: give the model's folder, which holds its tokenizer's files", ErrNoFolder, dir)
	}
	return nil
}

// sideFiles are the configuration files beside tokenizer.json that Load
// reads.
func sideFiles(dir string) []string {
	var out []string
	for _, n := range []string{"special_tokens_map.json", "tokenizer_config.json"} {
		if p := filepath.Join(dir, n); exists(p) {
			out = append(out, p)
		}
	}
	return out
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil || !errors.Is(err, fs.ErrNotExist)
}

// Load reads path as a tokenizer: a tokenizer.json file as written, or a
// model folder as Open reads it (the tools take either for -tokenizer).
func Load(path string) (*tokenizer.Tokenizer, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInput, err)
	}
	if !st.IsDir() {
		return tokenizer.Load(path)
	}
	tok, _, err := Open(path)
	return tok, err
}
