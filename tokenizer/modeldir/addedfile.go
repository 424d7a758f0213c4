package modeldir

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
)

// readAddedTokensFile reads added_tokens.json, the file older transformers
// (before 4.34) saved a slow tokenizer's added tokens in: an object from
// each token to its id. transformers reads it only when
// tokenizer_config.json has no added_tokens_decoder, after
// special_tokens_map.json, and turns each entry into
// AddedToken(token, lstrip=False, rstrip=False, normalized=not special,
// special=special), special meaning one of the special tokens the files
// name (a role's or additional_special_tokens'); the fast tokenizer it
// converts to adds them by id, each keeping its vocabulary id or taking
// the next one past the vocabulary (tokenizerJSON), whatever id the file
// gave it. A gap, an id past those, or an id another token has would give
// the model other ids than the slow tokenizer that wrote the file (and
// the model's embeddings) used: tokenizerJSON refuses them (index).
func (c *slowConfig) readAddedTokensFile(dir string) error {
	if _, ok := c.opts["added_tokens_decoder"]; ok {
		return nil // transformers does not read the file then
	}
	path := filepath.Join(dir, "added_tokens.json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: read %s: %w", ErrInput, path, err)
	}
	// In the file's order: a later token with the same id replaces an
	// earlier one in transformers' dict; here two tokens on one id are
	// refused.
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var m map[string]json.Number
	if err := dec.Decode(&m); err != nil {
		return fmt.Errorf("%w: %s is not an object of tokens and their ids: %w", ErrInput, path, err)
	}
	special := map[string]bool{}
	for _, t := range c.specials {
		special[t.Content] = true
	}
	for _, t := range c.additional {
		special[t.Content] = true
	}
	owner := map[int]string{}
	var list []addedToken
	for content, num := range m {
		id, err := num.Int64()
		if err != nil || id < 0 || id > math.MaxInt32 {
			return fmt.Errorf("%w: %s: %q has the id %s, not a token id", ErrInput, path, content, num)
		}
		if other, dup := owner[int(id)]; dup {
			a, b := min(other, content), max(other, content)
			return fmt.Errorf("%w: %s gives %q and %q the same id %d: one id cannot stand for two tokens", ErrInput, path, a, b, id)
		}
		owner[int(id)] = content
		normalized := !special[content]
		list = append(list, addedToken{Content: content, Normalized: &normalized, Special: special[content], index: int(id), from: path})
	}
	slices.SortFunc(list, func(a, b addedToken) int { return a.index - b.index })
	c.decoder = list
	c.files = append(c.files, path)
	return nil
}
