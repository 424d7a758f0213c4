package fingerprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Stdin is the input fingerprint of a run that reads standard input: what
// it read is recorded as it reads (the SHA-256 of the stream's text up to
// the resume point), not here.
const Stdin = "stdin"

// File is what the input's fingerprint knows of an input file.
type File struct {
	Name string // as positions and the journal name it
	Size int64
}

// Input identifies a run's input files: their names in order and, when
// ranks split them (split), their sizes, which decide the split.
func Input(files []File, split bool) string {
	h := sha256.New()
	var total int64
	for _, f := range files {
		fmt.Fprintf(h, "%s\x00", f.Name)
		if split {
			fmt.Fprintf(h, "%d\x00", f.Size)
			total += f.Size
		}
	}
	if split {
		return fmt.Sprintf("files=%d;bytes=%d;sha256=%s", len(files), total, hex.EncodeToString(h.Sum(nil)))
	}
	return fmt.Sprintf("files=%d;sha256=%s", len(files), hex.EncodeToString(h.Sum(nil)))
}
