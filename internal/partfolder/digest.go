package partfolder

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
)

// Footer is what a checkpoint knows of a sealed part: its size and the
// SHA-256 of its Parquet footer (the file metadata: schema, row groups'
// offsets, sizes and row counts, key/value metadata), a few kilobytes
// whatever the part's size.
type Footer struct {
	Size int64
	Sum  [sha256.Size]byte
}

// ReadFooter reads the footer of the sealed part f (its size from the
// caller's Stat). A file too short or not ending in a Parquet footer is
// an error that says so.
func ReadFooter(f io.ReaderAt, path string, size int64) (Footer, error) {
	var tail [8]byte
	if size < 12 {
		return Footer{}, fmt.Errorf("%s has %d bytes: not a Parquet file", path, size)
	}
	if _, err := f.ReadAt(tail[:], size-8); err != nil {
		return Footer{}, fmt.Errorf("reading %s: %w", path, err)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(tail[4:]) != "PAR1" || n > size-12 {
		return Footer{}, fmt.Errorf("%s does not end in a Parquet footer", path)
	}
	footer := make([]byte, n)
	if _, err := f.ReadAt(footer, size-8-n); err != nil && !errors.Is(err, io.EOF) {
		return Footer{}, fmt.Errorf("reading %s: %w", path, err)
	}
	return Footer{Size: size, Sum: sha256.Sum256(footer)}, nil
}

// FooterOf opens path and reads its footer.
func FooterOf(path string) (Footer, error) {
	f, err := os.Open(path)
	if err != nil {
		return Footer{}, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return Footer{}, err
	}
	return ReadFooter(f, path, st.Size())
}

// Chain adds one part to the digest of the parts before it (prev, "" for
// none): the digest a journal records of a folder's sealed parts, in
// order, whose size does not grow with the parts.
func Chain(prev string, f Footer) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%d\x00%x", prev, f.Size, f.Sum)
	return hex.EncodeToString(h.Sum(nil))
}
