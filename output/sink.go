package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"
	"qa-shard/internal/pin"
	"qa-shard/journal"
)

// openSink opens the answers for writing: fresh, or resumed after what
// the journal's state st records: st.Bytes (a file the journal already
// cut to that length, its hash going on from st.AnswersHash, see
// digest.go) or st.AnswerParts sealed parts (a Parquet folder, whose
// parts name st.Run).
func openSink(o Options, st journal.State, fresh bool) (sink, error) {
	f := format.Of(o.Answers)
	if f == format.Parquet {
		return openParts(o, st)
	}
	bytes := st.Bytes
	if fresh {
		bytes = -1
	}
	// Appending, also when fresh: a file truncated from outside the run
	// then stays shorter than what was written (Outputs.check sees it)
	// instead of growing a hole of NUL bytes where the records were.
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND | os.O_TRUNC
	if bytes >= 0 {
		flags = os.O_WRONLY | os.O_APPEND | os.O_CREATE
	}
	h, err := hashAfter(o.Answers, st.AnswersHash, bytes)
	if err != nil {
		return nil, err
	}
	w, err := o.open(o.Answers, flags)
	if err != nil {
		return nil, err
	}
	s := newStream(w, f, max(bytes, 0), h, o.Keep)
	if s.pinned, err = pin.Open(o.Answers, w); err != nil {
		w.Close()
		return nil, err
	}
	return s, nil
}

// remove deletes an output and its journal (for --overwrite): a file, or
// the parts of a Parquet folder and then the folder if nothing else is
// in it (a folder is never removed with content qa-shard did not write).
func remove(path string) error {
	if err := journal.Remove(path); err == nil || format.Of(path) != format.Parquet {
		return err
	}
	if err := partfolder.Remove(path); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s holds files qa-shard did not write; remove them or choose another --output: %w", path, err)
	}
	return nil
}
