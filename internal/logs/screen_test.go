package logs

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
)

// terminal replays what a terminal shows for the bytes written to it:
// carriage return, erase to the end of the line, newline, and characters
// that overwrite what is under the cursor.
func terminal(out string) []string {
	lines := [][]rune{nil}
	col := 0
	for i := 0; i < len(out); {
		switch {
		case strings.HasPrefix(out[i:], "\x1b[K"):
			row := len(lines) - 1
			lines[row] = lines[row][:min(col, len(lines[row]))]
			i += 3
			continue
		case out[i] == '\r':
			col = 0
		case out[i] == '\n':
			lines = append(lines, nil)
			col = 0
		default:
			r := []rune(out[i:])[0]
			row := len(lines) - 1
			if col < len(lines[row]) {
				lines[row][col] = r
			} else {
				lines[row] = append(lines[row], r)
			}
			col++
			i += len(string(r))
			continue
		}
		i++
	}
	var shown []string
	for _, l := range lines {
		shown = append(shown, string(l))
	}
	return shown
}

// TestLogLinesGoAboveTheBar: a log line written while the bar is shown
// takes the bar's place and the bar is drawn again below it; after Done
// the last bar stays and later lines go under it.
func TestLogLinesGoAboveTheBar(t *testing.T) {
	var out strings.Builder
	s := &screen{w: &out, width: func() int { return 0 }}
	bar := &Status{s}
	fmt.Fprint(s, "before\n")
	bar.Show("[==      ] 25% 10/40 docs")
	fmt.Fprint(s, "12:00:01 WARN record error\n")
	bar.Show("[====    ] 50% 20/40 docs")
	fmt.Fprint(s, "12:00:02 INFO two\nlines\n")
	bar.Show("[========] 100% 40/40 docs")
	bar.Done()
	fmt.Fprint(s, "12:00:03 INFO summary\n")
	want := []string{"before", "12:00:01 WARN record error", "12:00:02 INFO two", "lines", "[========] 100% 40/40 docs", "12:00:03 INFO summary", ""}
	if got := terminal(out.String()); !slices.Equal(got, want) {
		t.Errorf("the terminal shows\n%q\nwant\n%q", got, want)
	}
}

// TestBarCutToTheTerminal: a bar wider than the terminal would wrap, and
// each redraw would leave its first rows behind; it is cut to fit.
func TestBarCutToTheTerminal(t *testing.T) {
	var out strings.Builder
	s := &screen{w: &out, width: func() int { return 20 }}
	bar := &Status{s}
	for i := range 3 {
		bar.Show(fmt.Sprintf("%d: ", i) + strings.Repeat("é", 40))
	}
	bar.Done()
	got := terminal(out.String())
	if want := []string{"2: " + strings.Repeat("é", 16), ""}; !slices.Equal(got, want) {
		t.Errorf("the terminal shows %q, want %q", got, want)
	}
}

// TestConcurrentLinesStayWhole: lines logged from many goroutines while
// the bar redraws each come out whole, on lines of their own.
func TestConcurrentLinesStayWhole(t *testing.T) {
	var out strings.Builder
	s := &screen{w: &out, width: func() int { return 0 }}
	bar := &Status{s}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				fmt.Fprintf(s, "goroutine %d line %d\n", g, i)
			}
		})
	}
	wg.Go(func() {
		for i := range 100 {
			bar.Show(fmt.Sprintf("bar %d", i))
		}
	})
	wg.Wait()
	bar.Done()
	lines := terminal(out.String())
	if len(lines) != 4*50+2 || lines[len(lines)-2] != "bar 99" {
		t.Fatalf("%d lines, last %q", len(lines), lines[len(lines)-2:])
	}
	for _, l := range lines[:4*50] {
		var g, i int
		if n, err := fmt.Sscanf(l, "goroutine %d line %d", &g, &i); n != 2 || err != nil || l != fmt.Sprintf("goroutine %d line %d", g, i) {
			t.Errorf("line %q is not one whole log line", l)
		}
	}
}
