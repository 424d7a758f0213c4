package input

import (
	"bufio"
	"os"

	"golang.org/x/sys/unix"
)

// pauseHook is record.Options.Idle for the stream f reads (standard input
// or a pipe --input named): idle is called only when the stream has
// nothing more to give at once, nothing left in its buffer and nothing in
// the pipe, so that the caller (the batcher) cuts what it has without
// waiting, while a writer that keeps the pipe full never pauses the run.
func pauseHook(f *File, buffered *bufio.Reader, idle func()) func() {
	file := os.Stdin
	if f != nil && f.stream != nil {
		file = f.stream
	}
	fd := int32(file.Fd())
	return func() {
		if buffered.Buffered() == 0 && pipeEmpty(fd) {
			idle()
		}
	}
}

// pipeEmpty says whether a read of fd would wait: no data, and the writer
// has not closed it (then the read returns at once, at the end).
func pipeEmpty(fd int32) bool {
	fds := []unix.PollFd{{Fd: fd, Events: unix.POLLIN}}
	n, err := unix.Poll(fds, 0)
	return err == nil && n == 0
}
