package qa

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		mut  func(*Settings)
		ok   bool
	}{
		{"defaults", nil, true},
		{"tiny max seq len", func(s *Settings) { s.MaxSeqLen, s.DocStride = 4, 0 }, false},
		{"smallest max seq len", func(s *Settings) { s.MaxSeqLen, s.DocStride = 5, 0 }, true},
		{"negative stride", func(s *Settings) { s.DocStride = -1 }, false},
		{"stride at tokenizers' limit", func(s *Settings) { s.DocStride = 382 }, true},
		{"stride above tokenizers' limit", func(s *Settings) { s.DocStride = 383 }, false},
		{"zero max answer len", func(s *Settings) { s.MaxAnswerLen = 0 }, false},
		{"zero top k", func(s *Settings) { s.TopK = 0 }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := settings(tt.mut).Validate()
			if tt.ok && err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if !tt.ok && !errors.Is(err, ErrBadSettings) {
				t.Fatalf("got %v, want ErrBadSettings", err)
			}
		})
	}
}

func TestDefaultSettingsMatchHF(t *testing.T) {
	want := Settings{MaxSeqLen: 384, DocStride: 128, MaxAnswerLen: 15, TopK: 1, AlignToWords: true}
	if got := DefaultSettings(); got != want {
		t.Fatalf("got %+v, want %+v", got, want)
	}
}
