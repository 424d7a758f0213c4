package output

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"qa-shard/internal/errkind"
	"qa-shard/internal/format"
	"qa-shard/internal/record"
)

// Answers to standard output (--output -) are read as they come, by a
// pipe (jq, head, a loader): each record is flushed as it is written, not
// at the next checkpoint, and a reader that went away ends the run with
// ErrReaderGone instead of a SIGPIPE that kills it without a word.

// ErrReaderGone marks a write to standard output after its reader closed
// it (EPIPE): nothing more can be written, so the run stops (exit 75).
var ErrReaderGone = errkind.NewResumable("standard output was closed by its reader")

// stdoutStream is the JSONL stream to standard output.
type stdoutStream struct{ *stream }

func newStdout(keep []string) stdoutStream {
	// A write to a closed pipe on standard output then returns EPIPE:
	// without a handler, Go's runtime ends the process by SIGPIPE. The
	// channel is never read: a signal that finds it full is dropped.
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)
	return stdoutStream{newStream(os.Stdout, format.JSONL, 0, nil, keep)}
}

func (s stdoutStream) WriteAnswer(r record.AnswerRecord) error {
	return s.flushed(s.stream.WriteAnswer(r))
}

func (s stdoutStream) WriteError(r record.ErrorRecord) error {
	return s.flushed(s.stream.WriteError(r))
}

func (s stdoutStream) seal() error { return readerGone(s.stream.seal()) }

// flushed hands the record just written to standard output.
func (s stdoutStream) flushed(err error) error {
	if err != nil {
		return readerGone(err)
	}
	return s.seal()
}

func readerGone(err error) error {
	if errors.Is(err, syscall.EPIPE) {
		return fmt.Errorf("%w: %w", ErrReaderGone, err)
	}
	return err
}
