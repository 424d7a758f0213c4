package output

import (
	"crypto/sha256"
	"encoding"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"

	"qa-shard/journal"
)

// The answers file's digest: a JSONL answers file (plain or compressed)
// is hashed as it is written, bytes as they reach the file, and every
// checkpoint records the SHA-256 state after its journaled length
// (journal.State.AnswersHash: crypto/sha256's own marshalled state, which
// holds the length it hashed). A resume continues from that state, so the
// state always covers the journaled bytes, and a check of the answers
// (verifyAnswers: --resume, status --verify) hashes them again and
// compares: an answer edited in place, at the same length and with as
// many records, is found too. A Parquet answers folder and standard
// output have none, and neither do journals of an older qa-shard (a run
// resumed from one goes on without).

// hashAfter is the hash of an answers file that holds bytes bytes whose
// state the journal recorded (state; "" for none): a new hash for a new
// file, none when an older journal recorded no state of bytes already
// written.
func hashAfter(path, state string, bytes int64) (hash.Hash, error) {
	if bytes <= 0 {
		return sha256.New(), nil
	}
	if state == "" {
		return nil, nil
	}
	h, n, err := unmarshalHash(state)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: its journal's answers digest cannot be read (%w): the journal was edited; start over with --overwrite", journal.ErrCorrupt, path, err)
	}
	if n != bytes {
		return nil, fmt.Errorf("%w: %s: its journal's answers digest covers %d bytes, not the %d journaled: the journal was edited; start over with --overwrite", journal.ErrCorrupt, path, n, bytes)
	}
	return h, nil
}

// hashState is the recorded form of h's state ("" for no hash).
func hashState(h hash.Hash) string {
	if h == nil {
		return ""
	}
	b, err := h.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		return "" // crypto/sha256 always marshals
	}
	return hex.EncodeToString(b)
}

// unmarshalHash is the hash a recorded state continues, and how many
// bytes it has hashed.
func unmarshalHash(state string) (hash.Hash, int64, error) {
	b, err := hex.DecodeString(state)
	if err != nil {
		return nil, 0, err
	}
	h := sha256.New()
	if err := h.(encoding.BinaryUnmarshaler).UnmarshalBinary(b); err != nil {
		return nil, 0, err
	}
	if len(b) < 8 {
		return nil, 0, fmt.Errorf("a state of %d bytes", len(b))
	}
	return h, int64(binary.BigEndian.Uint64(b[len(b)-8:])), nil
}
