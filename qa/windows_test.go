package qa

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// ctxOf returns a context of n one-token words.
func ctxOf(n int) Tokens {
	_, t := toks(strings.TrimSpace(strings.Repeat("w ", n)))
	return t
}

func TestWindowsRanges(t *testing.T) {
	// MaxSeqLen 12 with a 2-token question: budget B = 12-2-3 = 7.
	tests := []struct {
		name   string
		n      int
		stride int
		want   [][2]int
	}{
		{"fits in one", 5, 3, [][2]int{{0, 5}}},
		{"exactly the budget", 7, 3, [][2]int{{0, 7}}},
		{"one over the budget", 8, 3, [][2]int{{0, 7}, {4, 8}}},
		{"last ends exactly at n", 15, 3, [][2]int{{0, 7}, {4, 11}, {8, 15}}},
		{"last is short", 16, 3, [][2]int{{0, 7}, {4, 11}, {8, 15}, {12, 16}}},
		{"zero stride", 15, 0, [][2]int{{0, 7}, {7, 14}, {14, 15}}},
		{"largest stride", 9, 6, [][2]int{{0, 7}, {1, 8}, {2, 9}}},
		{"stride beyond budget but context fits", 7, 9, [][2]int{{0, 7}}},
	}
	_, q := toks("who what")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := settings(func(s *Settings) { s.MaxSeqLen, s.DocStride = 12, tt.stride })
			ws, err := Windows(q, ctxOf(tt.n), testSpecial, s)
			if err != nil {
				t.Fatal(err)
			}
			var got [][2]int
			for i, w := range ws {
				if w.Index != i {
					t.Errorf("window %d has Index %d", i, w.Index)
				}
				got = append(got, [2]int{w.From, w.To})
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestWindowsContent(t *testing.T) {
	_, q := toks("who what")
	ctx := ctxOf(8)
	s := settings(func(s *Settings) { s.MaxSeqLen, s.DocStride = 12, 3 })
	ws, err := Windows(q, ctx, testSpecial, s)
	if err != nil {
		t.Fatal(err)
	}
	wantIDs := [][]int32{
		{101, 1000, 1001, 102, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 102},
		{101, 1000, 1001, 102, 1004, 1005, 1006, 1007, 102},
	}
	wantTypes := [][]int32{
		{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1},
		{0, 0, 0, 0, 1, 1, 1, 1, 1},
	}
	for i, w := range ws {
		if !slices.Equal(w.IDs, wantIDs[i]) {
			t.Errorf("window %d ids %v, want %v", i, w.IDs, wantIDs[i])
		}
		if !slices.Equal(w.TypeIDs, wantTypes[i]) {
			t.Errorf("window %d type ids %v, want %v", i, w.TypeIDs, wantTypes[i])
		}
		if w.Len() != len(wantIDs[i]) || w.QuestionLen != 2 {
			t.Errorf("window %d: Len %d, QuestionLen %d", i, w.Len(), w.QuestionLen)
		}
	}
	// Shared backing arrays must not let one window's append clobber the next.
	_ = append(ws[0].IDs, 7)
	if ws[1].IDs[0] != 101 {
		t.Fatal("appending to window 0 overwrote window 1")
	}
}

func TestWindowsErrors(t *testing.T) {
	_, q := toks("a b c d e f g h")
	tests := []struct {
		name string
		q    Tokens
		ctx  Tokens
		s    Settings
		want error
	}{
		{"question fills the window", q, ctxOf(3), settings(func(s *Settings) { s.MaxSeqLen, s.DocStride = 11, 2 }), ErrQuestionTooLong},
		{"question longer than the window", q, ctxOf(3), settings(func(s *Settings) { s.MaxSeqLen, s.DocStride = 8, 2 }), ErrQuestionTooLong},
		{"stride equals budget", q, ctxOf(5), settings(func(s *Settings) { s.MaxSeqLen, s.DocStride = 15, 4 }), ErrStrideTooLarge},
		{"stride above budget", q, ctxOf(5), settings(func(s *Settings) { s.MaxSeqLen, s.DocStride = 15, 9 }), ErrStrideTooLarge},
		{"empty question", Tokens{}, ctxOf(3), DefaultSettings(), ErrEmptyQuestion},
		{"empty context", q, Tokens{}, DefaultSettings(), ErrEmptyContext},
		{"bad settings", q, ctxOf(3), settings(func(s *Settings) { s.TopK = 0 }), ErrBadSettings},
		{"ragged tokens", Tokens{IDs: []int32{1}}, ctxOf(3), DefaultSettings(), ErrBadTokens},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Windows(tt.q, tt.ctx, testSpecial, tt.s)
			if !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

// TestWindowCount: the count equals the number of windows Windows cuts
// (0 where it refuses), over question and context lengths around every
// boundary of small settings.
func TestWindowCount(t *testing.T) {
	for _, sp := range []Template{BertTemplate(101, 102), robertaTemplate} {
		for _, s := range []Settings{{MaxSeqLen: 12, DocStride: 3, MaxAnswerLen: 3, TopK: 1}, {MaxSeqLen: 16, DocStride: 0, MaxAnswerLen: 3, TopK: 1}, {MaxSeqLen: 20, DocStride: 9, MaxAnswerLen: 3, TopK: 1}} {
			for qLen := 1; qLen <= s.MaxSeqLen; qLen++ {
				for n := 1; n <= 60; n++ {
					ws, err := Windows(ctxOf(qLen), ctxOf(n), sp, s)
					want := len(ws)
					if err != nil {
						want = 0
					}
					if got := WindowCount(qLen, n, sp.Added(), s); got != want {
						t.Fatalf("%+v question %d context %d: WindowCount %d, Windows %d (%v)", s, qLen, n, got, want, err)
					}
				}
			}
		}
	}
}
