package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"qa-shard/internal/readstate"
)

// encode returns the journal file's bytes: one JSON object and a newline,
// sealed with the checksum of its own content (see checksum).
func encode(s State) ([]byte, error) {
	sum, err := checksum(s)
	if err != nil {
		return nil, err
	}
	s.Checksum = sum
	b, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("journal: encoding the state: %w", err)
	}
	return append(b, '\n'), nil
}

// checksum is "sha256=<hex>" of the state's JSON without its checksum.
// A journal edited by hand, even into valid JSON with plausible counts,
// no longer matches it: a resume refuses it instead of trusting it.
func checksum(s State) (string, error) {
	s.Checksum = ""
	b, err := json.Marshal(s)
	if err != nil {
		return "", fmt.Errorf("journal: encoding the state: %w", err)
	}
	h := sha256.Sum256(b)
	return "sha256=" + hex.EncodeToString(h[:]), nil
}

// decode parses a journal file read from path (named in messages) and
// checks it against its own checksum and counts.
func decode(path string, b []byte) (State, error) {
	var s State
	if err := json.Unmarshal(b, &s); err != nil {
		return State{}, fmt.Errorf("%w: %s cannot be read (%w): it was damaged or edited; start over with --overwrite", ErrCorrupt, path, err)
	}
	if s.Version == 0 {
		// Valid JSON without a version is not something this package wrote.
		return State{}, fmt.Errorf("%w: %s has no version: it is not a qa-shard journal or was edited; start over with --overwrite", ErrCorrupt, path)
	}
	if s.Version < oldestVersion || s.Version > Version {
		return State{}, fmt.Errorf("%w: %s has version %d and this qa-shard reads versions %d to %d: resume with the qa-shard that wrote it, or start over with --overwrite", ErrVersion, path, s.Version, oldestVersion, Version)
	}
	sum, err := checksum(s)
	if err != nil {
		return State{}, err
	}
	if s.Checksum != sum {
		return State{}, fmt.Errorf("%w: %s does not match its own checksum (it records %.19s, its content gives %.19s): it was edited or damaged, so nothing it says can be trusted; start over with --overwrite", ErrCorrupt, path, s.Checksum, sum)
	}
	if s.Done < 0 || s.Bytes < 0 || s.LogitsParts < 0 || s.Records < 0 || s.Errors < 0 || s.Errors > s.Records {
		return State{}, fmt.Errorf("%w: %s has impossible counts (done %d, bytes %d, records %d, errors %d, logits parts %d): it was damaged or edited; start over with --overwrite", ErrCorrupt, path, s.Done, s.Bytes, s.Records, s.Errors, s.LogitsParts)
	}
	if s.Fingerprint.LegacyShard != "" && s.Fingerprint.Block == nil {
		b, err := readstate.ParseLegacy(s.Fingerprint.LegacyShard)
		if err != nil {
			return State{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
		}
		s.Fingerprint.Block = &b
	} else if b := s.Fingerprint.Block; b != nil {
		if err := b.Valid(); err != nil {
			return State{}, fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
		}
	}
	return s, nil
}
