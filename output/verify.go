package output

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/journal"
)

// VerifyAnswers checks answers that a journal vouches for (st, a rank's,
// complete or not) against it, reading them once, changing nothing: a
// file's journaled length ends a record and holds the journal's count of
// records (for gzip and zstd, whole members or frames); a Parquet folder
// has every part the journal counts, each of this run, with the digest
// the journal records and that many rows in all. A file shorter than the
// journal says, or missing, is the caller's to report (it knows the size
// it expects); anything else is journal.ErrCorrupt or
// journal.ErrOutputShort naming the file and what differs.
func VerifyAnswers(path string, st journal.State) error { return verifyAnswers(path, st) }

// verifyAnswers checks, before a resume cuts or appends anything, that the
// answers hold what the journal (its checksum already checked) says: the
// journaled length ends a record (a newline; for gzip and zstd, whole
// members or frames whose text ends in one), holds exactly its count of
// records and, where the journal records their digest, hashes as the
// bytes the run wrote did (digest.go); a Parquet folder has every part
// the journal counts, with that many rows in all. It reads the answers once (they are small beside
// the input); an output shorter than the journal, or missing, is left to
// the journal, which names it.
func verifyAnswers(path string, st journal.State) error {
	if format.Of(path) == format.Parquet {
		return verifyAnswerParts(path, st)
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("reading %s to check it against its journal: %w", path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() || info.Size() < st.Bytes {
		return nil
	}
	h := sha256.New()
	raw := bufio.NewReaderSize(io.TeeReader(io.LimitReader(f, st.Bytes), h), 1<<20)
	var text io.Reader = raw
	if st.Bytes > 0 {
		z, closeZ, err := textOf(text, path)
		if err != nil {
			return mismatch(path, st, fmt.Sprintf("its first %d bytes are not whole compressed members or frames (%v)", st.Bytes, err))
		}
		defer closeZ()
		text = z
	}
	lines, last, err := countNewlines(text)
	switch {
	case err != nil && format.Of(path) != format.JSONL:
		return mismatch(path, st, fmt.Sprintf("its first %d bytes are not whole compressed members or frames (%v)", st.Bytes, err))
	case err != nil:
		return fmt.Errorf("reading %s to check it against its journal: %w", path, err)
	}
	if what := fingerprint.AnswersText(st.Bytes, last == '\n', lines, st.Records); what != "" {
		return mismatch(path, st, what)
	}
	if st.AnswersHash == "" {
		return nil // a journal of an older qa-shard: no digest
	}
	if _, err := io.Copy(io.Discard, raw); err != nil {
		return fmt.Errorf("reading %s to check it against its journal: %w", path, err)
	}
	var recorded []byte
	want, n, err := unmarshalHash(st.AnswersHash)
	if err == nil {
		recorded = want.Sum(nil)
	}
	if what := fingerprint.AnswersDigest(st.Bytes, err == nil, n, h.Sum(nil), recorded); what != "" {
		return mismatch(path, st, what)
	}
	return nil
}

// countNewlines counts the newlines of r and returns its last byte (0 for
// none).
func countNewlines(r io.Reader) (n int64, last byte, err error) {
	buf := make([]byte, 1<<20)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += int64(bytes.Count(buf[:k], []byte{'\n'}))
			last = buf[k-1]
		}
		if errors.Is(err, io.EOF) {
			return n, last, nil
		}
		if err != nil {
			return n, last, err
		}
	}
}

// verifyAnswerParts: the sealed parts the journal counts are there, each
// of this run (when the part names one), together the parts whose digest
// the journal records (when it records one) and holding its count of
// records.
func verifyAnswerParts(dir string, st journal.State) error {
	var rows int64
	sums := ""
	for i := range st.AnswerParts {
		path := partfolder.Path(dir, i)
		p, err := readPart(path)
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s is missing, and the journal records %d parts in %s: the output was changed after the run; start over with --overwrite", journal.ErrOutputShort, path, st.AnswerParts, dir)
		}
		var open *openError
		if errors.As(err, &open) {
			return fmt.Errorf("reading %s to check it against its journal: %w", path, err)
		}
		if err != nil {
			return mismatch(dir, st, fmt.Sprintf("%s cannot be read (%v)", path, err))
		}
		if what := fingerprint.PartRun(path, p.run, st.Run); what != "" {
			return mismatch(dir, st, what)
		}
		rows += p.rows
		sums = partfolder.Chain(sums, p.footer)
	}
	if what := fingerprint.AnswerParts(st.AnswerParts, rows, st.Records, sums, st.AnswerDigest); what != "" {
		return mismatch(dir, st, what)
	}
	return nil
}

// mismatch is the answers disagreeing with a journal that is whole: one
// of the two was changed after the run, so neither is trusted.
func mismatch(path string, st journal.State, what string) error {
	return fmt.Errorf("%w: %s does not match its journal, which records %d records in %d documents: %s; the output or the journal was changed after the run, so neither can be trusted; start over with --overwrite",
		journal.ErrCorrupt, path, st.Records, st.Done, what)
}
