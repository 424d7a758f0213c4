package output

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/journal"
	"qa-shard/output/logits"
)

// CheckSaved says, changing nothing and taking no lock, whether the
// answers at path and the logits folder logitsDir ("" when the run wrote
// none, or its journal does not say where) hold what the journal st
// vouches for. A complete run's answers file has exactly the journaled
// length, its Parquet folder and its logits folder exactly the journaled
// parts, each still ending in a Parquet footer; an unfinished run's have
// at least those (what follows, a resume drops). With deep their content is read too: the answers' records are
// counted (each whole, compressed members and frames whole), a JSONL
// file hashed against the journal's digest (digest.go), Parquet parts
// read for their rows, and the logits parts held to the journal's digest
// of their sizes and footers. What does not match is
// journal.ErrCorrupt (logits.ErrParts for the logits' digest), saying what
// differs.
func CheckSaved(path string, st journal.State, logitsDir string, deep bool) error {
	var err error
	if format.Of(path) == format.Parquet {
		err = checkParts(path, st.AnswerParts, st.Complete, "answers")
		if err == nil && deep {
			err = verifyAnswerParts(path, st)
		}
	} else {
		err = checkAnswersFile(path, st)
		if err == nil && deep {
			err = verifyAnswers(path, st)
		}
	}
	if err != nil || logitsDir == "" || (st.LogitsParts == 0 && !st.Complete) {
		return err
	}
	if err := checkParts(logitsDir, st.LogitsParts, st.Complete, "logits"); err != nil {
		return err
	}
	if deep {
		return logits.Verify(logitsDir, st.LogitsParts, st.LogitsDigest, st.Run)
	}
	return nil
}

// checkAnswersFile: the file is there with the journaled length (at least
// that, while the run is not complete).
func checkAnswersFile(path string, st journal.State) error {
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: %s is missing, and its journal vouches for %d bytes of answers (%d documents): it was moved or deleted after the run",
			journal.ErrCorrupt, path, st.Bytes, st.Done)
	case err != nil:
		return fmt.Errorf("checking %s against its journal: %w", path, err)
	case !info.Mode().IsRegular():
		return fmt.Errorf("%w: %s is not a regular file, and its journal vouches for %d bytes of answers", journal.ErrCorrupt, path, st.Bytes)
	}
	if what := fingerprint.SavedLength(path, info.Size(), st.Bytes, st.Done, st.Complete); what != "" {
		return fmt.Errorf("%w: %s", journal.ErrCorrupt, what)
	}
	return nil
}

// checkParts: the folder holds the first n sealed parts and, when the run
// is complete, no other.
func checkParts(dir string, n int, complete bool, what string) error {
	info, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w: the %s folder %s is missing, and its journal vouches for %d parts in it: it was moved or deleted after the run", journal.ErrCorrupt, what, dir, n)
	case err != nil:
		return fmt.Errorf("checking %s against its journal: %w", dir, err)
	case !info.IsDir():
		return fmt.Errorf("%w: %s is not a folder, and its journal vouches for %d %s parts in it", journal.ErrCorrupt, dir, n, what)
	}
	for i := range n {
		if err := endsInFooter(partfolder.Path(dir, i)); errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%w: %s is missing, one of the %d %s parts its journal vouches for in %s", journal.ErrCorrupt, partfolder.Name(i), n, what, dir)
		} else if err != nil {
			return fmt.Errorf("%w: %s, one of the %d %s parts its journal vouches for in %s: %w", journal.ErrCorrupt, partfolder.Name(i), n, what, dir, err)
		}
	}
	if !complete {
		return nil
	}
	parts, err := partfolder.List(dir)
	if err != nil {
		return fmt.Errorf("checking %s against its journal: %w", dir, err)
	}
	for _, p := range parts {
		i, ok := partfolder.Index(filepath.Base(p))
		if extra := fingerprint.ExtraPart(dir, filepath.Base(p), i, n, what); ok && extra != "" {
			return fmt.Errorf("%w: %s", journal.ErrCorrupt, extra)
		}
	}
	return nil
}

// endsInFooter checks that a sealed part still ends as a Parquet file
// does (its footer's length, then "PAR1"), reading its last 8 bytes: a
// part truncated or emptied after the run does not.
func endsInFooter(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	var tail [8]byte
	if info.Size() < 12 {
		return fmt.Errorf("it has %d bytes: it was truncated after the run", info.Size())
	}
	if _, err := f.ReadAt(tail[:], info.Size()-8); err != nil {
		return err
	}
	if n := int64(binary.LittleEndian.Uint32(tail[:4])); string(tail[4:]) != "PAR1" || n > info.Size()-12 {
		return fmt.Errorf("it does not end in a Parquet footer: it was truncated or changed after the run")
	}
	return nil
}
