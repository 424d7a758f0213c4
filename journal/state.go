package journal

import (
	"encoding/json"
	"fmt"
)

// encode returns the journal file's bytes: one JSON object and a newline, a
// few hundred bytes whatever Done is.
func encode(s State) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding the state: %w", err)
	}
	return append(b, '\n'), nil
}

// decode parses a journal file read from path (named in messages).
func decode(path string, b []byte) (State, error) {
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("%w: %s cannot be read (%w): it was damaged or edited; start over with --overwrite", ErrCorrupt, path, err)
	}
	if s.Version == 0 {
		// Valid JSON without a version is not something this package wrote.
		return State{}, fmt.Errorf("%w: %s has no version: it is not a qa-shard journal or was edited; start over with --overwrite", ErrCorrupt, path)
	}
	if s.Version != Version {
		return State{}, fmt.Errorf("%w: %s has version %d and this qa-shard reads version %d: resume with the qa-shard that wrote it, or start over with --overwrite", ErrVersion, path, s.Version, Version)
	}
	if s.Done < 0 || s.Bytes < 0 || s.LogitsParts < 0 {
		return State{}, fmt.Errorf("%w: %s has negative counts (done %d, bytes %d, logits parts %d): it was damaged or edited; start over with --overwrite", ErrCorrupt, path, s.Done, s.Bytes, s.LogitsParts)
	}
	return s, nil
}
