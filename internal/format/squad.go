package format

import (
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
)

// MaybeSQuAD says whether a file's name lets it be a SQuAD dataset: it
// ends in .json (case aside), as SQuAD's own files (train-v1.1.json,
// dev-v2.0.json) do. Only such files are looked into (IsSQuAD); any other
// name is read by its format as before.
func MaybeSQuAD(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") }

// IsSQuAD reads the start of a JSON text and says whether it is a SQuAD
// dataset, {"version": ..., "data": [{"title": ..., "paragraphs": [...]},
// ...]}: a top-level object whose members before "data" are only
// "version", with "data" an array that is empty or starts with an object
// whose first member is "title" or "paragraphs". A JSON-lines record (an
// object with a context, an id, ...) is not one. It reads only as far as
// it needs: the version and the first article's first key.
func IsSQuAD(r io.Reader) bool {
	dec := json.NewDecoder(r)
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		switch key {
		case "version":
			var skip json.RawMessage
			if dec.Decode(&skip) != nil {
				return false
			}
		case "data":
			if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
				return false
			}
			if !dec.More() {
				return true // no articles
			}
			if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
				return false
			}
			first, err := dec.Token()
			return err == nil && (first == "title" || first == "paragraphs")
		default:
			return false
		}
	}
	return false
}
