package scheduler

import (
	"context"
	"fmt"
	"sync"

	"qa-shard/internal/errkind"
	"qa-shard/qa"
)

// ErrTooManyWindows is the error record of a document that needs more
// windows than Config.MaxWindowsPerDoc.
var ErrTooManyWindows = errkind.NewInternal("document too long")

// errEmptyQuestion is the error record of a record's empty question.
var errEmptyQuestion = fmt.Errorf(`%w: the record's "question" or a "questions" item is empty, so it is not asked (Hugging Face refuses an empty question too)`, qa.ErrEmptyQuestion)

// questionCache tokenizes each distinct question once: a run usually asks
// the same few questions of every document.
type questionCache struct {
	mu sync.RWMutex
	m  map[string]qa.Tokens
}

func (c *questionCache) get(tok Tokenizer, q string) qa.Tokens {
	c.mu.RLock()
	t, ok := c.m[q]
	c.mu.RUnlock()
	if ok {
		return t
	}
	t = tok.Encode(q)
	c.mu.Lock()
	if c.m == nil {
		c.m = map[string]qa.Tokens{}
	}
	if len(c.m) < 4096 { // per-record questions must not grow it forever
		c.m[q] = t
	}
	c.mu.Unlock()
	return t
}

// tokenizeStage tokenizes each context once and cuts windows for each of
// the document's questions; several workers run it. A document with
// nothing to run (a bad line, or no question that fits) goes straight to
// the writer.
type tokenizeStage struct {
	tok        Tokenizer
	template   qa.Template
	settings   qa.Settings
	maxWindows int  // per document, all questions together (0: no limit)
	keepLogits bool // the run writes logits: keep each window's
	progress   *progress
	flow       *flow
}

func newTokenizeStage(cfg Config, tok Tokenizer, keepLogits bool, prog *progress, f *flow) *tokenizeStage {
	return &tokenizeStage{tok: tok, template: cfg.Template, settings: cfg.Settings, maxWindows: cfg.MaxWindowsPerDoc,
		keepLogits: keepLogits, progress: prog, flow: f}
}

// run is one worker: it ends when docs is closed.
func (s *tokenizeStage) run(ctx context.Context, docs <-chan *docState, windows chan<- windowRef, done chan<- *docState) error {
	var cache questionCache
	for {
		var d *docState
		select {
		case <-ctx.Done():
			return ctx.Err()
		case v, ok := <-docs:
			if !ok {
				return nil
			}
			d = v
		}
		if d.doc.Err == nil {
			d.settings, d.doc.Err = recordSettings(s.settings, d.doc.Settings)
		}
		if d.doc.Err == nil {
			s.cut(d, &cache)
		}
		var n int64
		for _, q := range d.questions {
			n += int64(len(q.windows))
		}
		if n == 0 {
			s.progress.addWork(d.doc.Bytes)
			if err := send(ctx, done, d); err != nil {
				return err
			}
			s.flow.done(true)
			continue
		}
		d.windows = n
		d.pending.Store(n)
		sent := int64(0)
		for qi, q := range d.questions {
			for wi := range q.windows {
				if sent == n-1 {
					// Counted before its last window is sent, so the batcher
					// that receives it finds the document settled.
					s.flow.done(false)
				}
				if err := send(ctx, windows, windowRef{doc: d, q: qi, w: wi}); err != nil {
					return err
				}
				sent++
			}
		}
	}
}

// cut tokenizes d's context and cuts the windows of each question.
func (s *tokenizeStage) cut(d *docState, cache *questionCache) {
	d.ctx = s.tok.Encode(d.doc.Context)
	d.questions = make([]questionState, len(d.doc.Questions))
	qs := make([]qa.Tokens, len(d.doc.Questions))
	total := 0
	for i, text := range d.doc.Questions {
		d.questions[i].text = text
		if text == "" {
			d.questions[i].err = errEmptyQuestion
			continue
		}
		qs[i] = cache.get(s.tok, text)
		total += qa.WindowCount(qs[i].Len(), d.ctx.Len(), s.template.Added(), d.settings)
	}
	// Counted before any window is cut: a hostile document costs its
	// tokenization and nothing more.
	if limit := s.maxWindows; limit > 0 && total > limit {
		err := fmt.Errorf("%w: the document needs %d windows (%d context tokens, %d question(s)), more than --max-windows-per-doc %d; nothing of it was answered: raise --max-windows-per-doc (or 0 for no limit) to answer it",
			ErrTooManyWindows, total, d.ctx.Len(), len(d.doc.Questions), limit)
		for i := range d.questions {
			if d.questions[i].err == nil {
				d.questions[i].err = err
			}
		}
		return
	}
	for i := range d.questions {
		q := &d.questions[i]
		if q.err != nil {
			continue
		}
		ws, err := qa.Windows(qs[i], d.ctx, s.template, d.settings)
		if err != nil {
			q.err = err
			continue
		}
		q.windows = ws
		q.results = make([]qa.WindowResult, len(ws))
		if s.keepLogits {
			q.raw = make([]qa.Logits, len(ws))
		}
	}
}
