package scheduler

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// TestRecordSettings: with a settings field, each record is cut, decoded
// and merged with its own settings, in one run whose batches mix them:
// every answer equals the same document answered alone with those
// settings, a record without settings gets the run's, and a record whose
// settings are bad gets an error record saying why while the others are
// answered.
func TestRecordSettings(t *testing.T) {
	run := testSettings()
	ptr := func(v int) *int { return &v }
	yes, no := true, false
	own := []*record.Settings{
		nil,
		{TopK: ptr(1)},
		{TopK: ptr(5), MaxAnswerLen: ptr(3)},
		{MaxSeqLen: ptr(24), DocStride: ptr(4)},
		{HandleImpossibleAnswer: &yes, AlignToWords: &no},
		{LegacyTopK: &yes, TopK: ptr(2), MaxQuestionLen: ptr(4)},
		{MaxSeqLen: ptr(40)},
	}
	texts := contexts(70, 90, 11)
	var lines []string
	want := make([]qa.Settings, len(texts))
	for i, c := range texts {
		m := map[string]any{"id": i, "context": c}
		s := own[i%len(own)]
		if s != nil {
			m["settings"] = s
		}
		b, _ := json.Marshal(m)
		lines = append(lines, string(b))
		want[i] = apply(run, s)
	}
	bad := map[int]string{
		3:  `{"max_seq_len": 65}`,
		10: `{"top_k": 0}`,
		17: `{"topk": 2}`,
		24: `{"doc_stride": "8"}`,
		31: `[1]`,
		38: `{"max_seq_len": 20, "doc_stride": 30}`,
	}
	for i, s := range bad {
		lines[i] = `{"id": ` + strconv.Itoa(i) + `, "context": "the company was founded", "settings": ` + s + `}`
	}
	src := record.NewStream(strings.NewReader(strings.Join(lines, "\n")+"\n"),
		record.Options{Questions: []string{overlapQuestion}, Schema: record.Schema{ID: record.Int}, Fields: record.Fields{Settings: "settings"}})
	_, rs := newReplicas(2, 0)
	var sink memSink
	sum, err := runGuarded(t, guard(t), testConfig(), src, rs, &sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sink.records) != len(lines) || sum.RecordErrors != int64(len(bad)) {
		t.Fatalf("%d records and %d errors, want %d and %d", len(sink.records), sum.RecordErrors, len(lines), len(bad))
	}
	wantErr := map[int][]string{3: {"max_seq_len 65", "--max-seq-len 64"}, 10: {"top k 0"}, 17: {`unknown field "topk"`, "top_k"},
		24: {"doc_stride"}, 31: {"must be an object"}, 38: {"doc stride 30"}}
	for i, r := range sink.records {
		if words, ok := wantErr[i]; ok {
			if r.err == nil || !strings.Contains(r.err.Error, "bad settings") {
				t.Fatalf("record %d: %+v, want a bad settings error record", i, r)
			}
			for _, w := range words {
				if !strings.Contains(r.err.Error, w) {
					t.Errorf("record %d: error %q lacks %q", i, r.err.Error, w)
				}
			}
			continue
		}
		if r.answer == nil {
			t.Fatalf("record %d is an error: %+v", i, *r.err)
		}
		answers, windows := expectedAnswers(t, texts[i], overlapQuestion, want[i])
		if r.answer.Windows != len(windows) {
			t.Errorf("record %d: %d windows, want %d (max_seq_len %d, doc_stride %d)", i, r.answer.Windows, len(windows), want[i].MaxSeqLen, want[i].DocStride)
		}
		if r.answer.Answer != answers[0].Text || r.answer.Score != answers[0].Score {
			t.Errorf("record %d: %q %v, want %q %v", i, r.answer.Answer, r.answer.Score, answers[0].Text, answers[0].Score)
		}
		switch {
		case want[i].TopK == 1 && r.answer.Answers != nil:
			t.Errorf("record %d: top_k 1 lists %d answers", i, len(r.answer.Answers))
		case want[i].TopK > 1 && len(r.answer.Answers) != len(answers):
			t.Errorf("record %d: %d answers listed, want %d", i, len(r.answer.Answers), len(answers))
		}
	}
}

// apply is recordSettings as the test expects it, for good settings.
func apply(s qa.Settings, own *record.Settings) qa.Settings {
	if own == nil {
		return s
	}
	set := func(to *int, from *int) {
		if from != nil {
			*to = *from
		}
	}
	set(&s.TopK, own.TopK)
	set(&s.MaxAnswerLen, own.MaxAnswerLen)
	set(&s.MaxSeqLen, own.MaxSeqLen)
	set(&s.DocStride, own.DocStride)
	if own.HandleImpossibleAnswer != nil {
		s.HandleImpossible = *own.HandleImpossibleAnswer
	}
	if own.AlignToWords != nil {
		s.AlignToWords = *own.AlignToWords
	}
	if own.LegacyTopK != nil {
		s.LegacyTopK = *own.LegacyTopK
	}
	return s
}
