package logs

import (
	"io"
	"os"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"
)

// screen is standard error shared by every logger and the live progress
// bar. A log line written while the bar is shown clears the bar's line,
// takes its place and the bar is drawn again below it, so the two never
// overwrite each other on a terminal.
type screen struct {
	mu     sync.Mutex
	w      io.Writer  // nil: os.Stderr as it is at each write (tests replace it)
	width  func() int // terminal columns (0: unknown)
	status string     // the status line now drawn ("": none)
}

var stderr = &screen{width: func() int {
	if w, _, err := term.GetSize(int(os.Stderr.Fd())); err == nil {
		return w
	}
	return 0
}}

func (s *screen) out() io.Writer {
	if s.w == nil {
		return os.Stderr
	}
	return s.w
}

// Console is standard error for text written for a person (the summary
// table): like the loggers, it goes above a status line still shown.
func Console() io.Writer { return stderr }

const clearLine = "\r\x1b[K"

// Write writes log lines above the status line.
func (s *screen) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status == "" {
		return s.out().Write(p)
	}
	if _, err := io.WriteString(s.out(), clearLine); err != nil {
		return 0, err
	}
	n, err := s.out().Write(p)
	if err == nil {
		_, err = io.WriteString(s.out(), s.status)
	}
	return n, err
}

// Sync flushes standard error (zap calls it after an error line).
func (s *screen) Sync() error {
	if f, ok := s.out().(interface{ Sync() error }); ok {
		return f.Sync()
	}
	return nil
}

// show draws text as the status line, cut to the terminal's width: a line
// that wrapped would leave its first rows behind at every redraw.
func (s *screen) show(text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w := s.width(); w > 1 {
		text = cut(text, w-1)
	}
	if text == "" {
		text = " "
	}
	s.status = text
	_, _ = io.WriteString(s.out(), clearLine+text) // a bar that cannot be drawn is no failure of the run
}

// done ends the status line where it stands; later writes go below it.
func (s *screen) done() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.status != "" {
		_, _ = io.WriteString(s.out(), "\n")
	}
	s.status = ""
}

// cut keeps the first n characters of text.
func cut(text string, n int) string {
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	i := 0
	for k := range text {
		if i == n {
			return text[:k]
		}
		i++
	}
	return text
}

// Status is the live bar's line at the bottom of the terminal (see Bar).
type Status struct{ s *screen }

// Show replaces the line with text.
func (b *Status) Show(text string) { b.s.show(text) }

// Done leaves the line as last shown and ends it.
func (b *Status) Done() { b.s.done() }
