package scheduler

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"qa-shard/internal/record"
	"qa-shard/qa"
)

// Special ids of the fake vocabulary; word ids start above them.
const (
	clsID = 101
	sepID = 102
	padID = 0
)

var special = qa.BertTemplate(clsID, sepID)

// testSettings cut a document of more than ~55 words into several windows.
func testSettings() qa.Settings {
	return qa.Settings{MaxSeqLen: 64, DocStride: 16, MaxAnswerLen: 15, TopK: 3, AlignToWords: true}
}

func testConfig() Config {
	return Config{Settings: testSettings(), Template: special, PadID: padID, Batching: Batching{MaxBatchTokens: 512, TokenizeWorkers: 2}}
}

// wordTokenizer makes one token per whitespace-separated word: the id is a
// hash of the word, offsets are in code points and the word id is the
// word's index. It is pure, hence safe for concurrent use.
type wordTokenizer struct{}

func (wordTokenizer) Encode(text string) qa.Tokens {
	var t qa.Tokens
	start := int32(-1)
	var pos int32
	var word strings.Builder
	flush := func() {
		if start >= 0 {
			t.IDs = append(t.IDs, wordID(word.String()))
			t.Offsets = append(t.Offsets, qa.Span{Start: start, End: pos})
			t.Words = append(t.Words, int32(len(t.Words)))
			start = -1
			word.Reset()
		}
	}
	for _, r := range text {
		if unicode.IsSpace(r) {
			flush()
		} else {
			if start < 0 {
				start = pos
			}
			word.WriteRune(r)
		}
		pos++
	}
	flush()
	return t
}

// Marker words have ids of their own, outside the hashed range, so a
// replica can recognize the batch holding a given document.
var markers = map[string]int32{"straggler": 900, "poison": 901, "first": 902}

func wordID(w string) int32 {
	if id, ok := markers[w]; ok {
		return id
	}
	h := fnv.New32a()
	h.Write([]byte(w))
	return 1000 + int32(h.Sum32()%20000)
}

// Fake logits depend only on the token id, so a window's logits are the
// same whether it runs alone or padded inside any batch. Padding gets a
// large value that would win every span if it leaked into decoding.
func startLogit(id int64) float32 {
	if id == padID {
		return 50
	}
	return float32(id*7919%97)/10 - 5
}

func endLogit(id int64) float32 {
	if id == padID {
		return 50
	}
	return float32(id*104729%89)/10 - 4
}

func fakeLogits(b qa.Batch) qa.Logits {
	out := qa.Logits{Start: make([]float32, len(b.InputIDs)), End: make([]float32, len(b.InputIDs))}
	for i, id := range b.InputIDs {
		out.Start[i], out.End[i] = startLogit(id), endLogit(id)
	}
	return out
}

// sunk is what the sink received, in order: an answer or an error.
type sunk struct {
	answer *record.AnswerRecord
	err    *record.ErrorRecord
}

func (r sunk) id() string {
	if r.answer != nil {
		return string(r.answer.ID)
	}
	return string(r.err.ID)
}

type memSink struct {
	mu      sync.Mutex
	records []sunk
}

func (s *memSink) WriteAnswer(a record.AnswerRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, sunk{answer: &a})
	return nil
}

func (s *memSink) WriteError(e record.ErrorRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.records = append(s.records, sunk{err: &e})
	return nil
}

type rowSink struct{ rows []record.LogitsRow }

func (s *rowSink) Write(rows []record.LogitsRow) error {
	s.rows = append(s.rows, rows...)
	return nil
}

// corpus is deterministic JSONL: document i has id i and 5..maxWords words
// from a small vocabulary, so answers repeat across windows and merge.
func corpus(n, maxWords int, seed uint64) []string {
	lines := make([]string, n)
	for i, c := range contexts(n, maxWords, seed) {
		lines[i] = jsonLine(i, c)
	}
	return lines
}

var vocab = strings.Fields("the company was founded in paris by ada lovelace and later moved to berlin where its headquarters stand today near the river café naïve")

func contexts(n, maxWords int, seed uint64) []string {
	rng := rand.New(rand.NewPCG(seed, 1))
	out := make([]string, n)
	for i := range out {
		words := make([]string, 5+rng.IntN(maxWords-4))
		for j := range words {
			words[j] = vocab[rng.IntN(len(vocab))]
		}
		out[i] = strings.Join(words, " ")
	}
	return out
}

func contextOf(t *testing.T, line string) string {
	t.Helper()
	var m struct{ Context string }
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("test corpus line %q: %v", line, err)
	}
	return m.Context
}

func jsonLine(id int, context string) string {
	b, _ := json.Marshal(map[string]any{"id": id, "context": context})
	return string(b)
}

func source(lines []string, questions ...string) *record.Stream {
	return record.NewStream(strings.NewReader(strings.Join(lines, "\n")+"\n"), record.Options{Questions: questions, Schema: record.Schema{ID: record.Int}})
}

// expectedAnswers decodes every window of (question, context) alone and
// unpadded with the fake logits and merges them: what the pipeline must
// produce however it batches.
func expectedAnswers(t *testing.T, context, question string, s qa.Settings) ([]qa.Answer, []qa.Window) {
	t.Helper()
	var tok wordTokenizer
	ctx := tok.Encode(context)
	ws, err := qa.Windows(tok.Encode(question), ctx, special, s)
	if err != nil {
		t.Fatalf("expected windows: %v", err)
	}
	results := make([]qa.WindowResult, len(ws))
	for i, w := range ws {
		start, end := make([]float32, w.Len()), make([]float32, w.Len())
		for j, id := range w.IDs {
			start[j], end[j] = startLogit(int64(id)), endLogit(int64(id))
		}
		results[i], err = qa.DecodeWindow(w, ctx, special, start, end, s)
		if err != nil {
			t.Fatalf("expected decode: %v", err)
		}
	}
	return qa.Answers(context, results, s), ws
}

// guard bounds a run that should finish: a hang becomes a test failure
// instead of a stuck test binary. It asserts nothing about speed.
func guard(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func runGuarded(t *testing.T, ctx context.Context, cfg Config, src Source, rs []Replica, sink record.Sink, lg LogitsSink) (Summary, error) {
	t.Helper()
	type result struct {
		sum Summary
		err error
	}
	ch := make(chan result, 1)
	go func() {
		sum, err := Run(ctx, cfg, src, wordTokenizer{}, rs, sink, lg)
		ch <- result{sum, err}
	}()
	select {
	case r := <-ch:
		return r.sum, r.err
	case <-time.After(4 * time.Minute):
		t.Fatal("Run did not return within the guard time: the pipeline hangs")
		return Summary{}, nil
	}
}

// overlapQuestion is the question of the corpora whose answers
// checkAnswers checks.
const overlapQuestion = "who founded the company"

// waitUntil polls cond until it holds; false after a minute (a hang).
func waitUntil(ctx context.Context, cond func() bool) bool {
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) || ctx.Err() != nil {
			return false
		}
		time.Sleep(50 * time.Microsecond)
	}
	return true
}

func checkAnswers(t *testing.T, lines []string, sink *memSink) {
	t.Helper()
	if len(sink.records) != len(lines) {
		t.Fatalf("%d records, want %d", len(sink.records), len(lines))
	}
	for i, r := range sink.records {
		if r.answer == nil {
			t.Fatalf("record %d is an error: %+v", i, *r.err)
		}
		want, _ := expectedAnswers(t, contextOf(t, lines[i]), overlapQuestion, testSettings())
		if len(r.answer.Answers) == 0 || r.answer.Answers[0].Answer != want[0].Text {
			t.Fatalf("record %d: %+v, want %+v", i, r.answer.Answers, want)
		}
	}
}
