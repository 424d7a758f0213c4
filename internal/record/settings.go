package record

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Settings are a record's own answer settings (Fields.Settings names the
// field), in the names of transformers' QuestionAnsweringPipeline call;
// a setting left out (nil) is the run's. The scheduler applies them to
// the run's (qa.Settings) and checks the result.
type Settings struct {
	TopK                   *int  `json:"top_k,omitempty"`
	DocStride              *int  `json:"doc_stride,omitempty"`
	MaxAnswerLen           *int  `json:"max_answer_len,omitempty"`
	MaxSeqLen              *int  `json:"max_seq_len,omitempty"`
	HandleImpossibleAnswer *bool `json:"handle_impossible_answer,omitempty"`
	AlignToWords           *bool `json:"align_to_words,omitempty"`
	LegacyTopK             *bool `json:"legacy_top_k,omitempty"`
	// MaxQuestionLen is accepted and changes nothing, as in transformers'
	// fast-tokenizer path (it only bounds slow tokenizers' questions).
	MaxQuestionLen *int `json:"max_question_len,omitempty"`
}

// settingsOf decodes a record's settings field: nil when the record has
// none (or null), an error naming what is wrong otherwise.
func settingsOf(raw json.RawMessage, name string) (*Settings, error) {
	if len(raw) == 0 || raw[0] == 'n' {
		return nil, nil
	}
	if raw[0] != '{' {
		return nil, fmt.Errorf("%w: %q must be an object of answer settings (top_k, doc_stride, max_answer_len, max_seq_len, handle_impossible_answer, align_to_words), found %s", ErrBadSettings, name, kind(raw))
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var s Settings
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %q: %w (known settings: top_k, doc_stride, max_answer_len, max_seq_len, max_question_len, handle_impossible_answer, align_to_words, legacy_top_k)", ErrBadSettings, name, err)
	}
	return &s, nil
}
