package input

import (
	"sync"

	"qa-shard/internal/readstate"
)

// marks is what At reports from: the input state after each document read
// and not yet checkpointed, the parts read to their end, and where this
// process started. The reader adds to it while the writer asks At.
type marks struct {
	mu    sync.Mutex
	list  []mark           // one per document read and not yet checkpointed
	done  []readstate.File // parts read to their end, in order
	start readstate.State  // where this process started
}

// mark is the input state just after one document. Marks live from the
// document's reading to the next checkpoint, so they are kept small:
// about 150 bytes (30 s between checkpoints at 10,000 documents/s is
// 45 MB; --checkpoint-interval bounds it).
type mark struct {
	seq   int64
	to    int64 // end of the document: a byte offset, or the next row
	from  int64
	part  int32
	ndone int32
	state hashState // the part's hash state
}

// add keeps a document's mark.
func (ms *marks) add(m mark) {
	ms.mu.Lock()
	ms.list = append(ms.list, m)
	ms.mu.Unlock()
}

// finished notes a part read to its end.
func (ms *marks) finished(f readstate.File) {
	ms.mu.Lock()
	ms.done = append(ms.done, f)
	ms.mu.Unlock()
}

// parts is how many parts were read to their end.
func (ms *marks) parts() int {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return len(ms.done)
}

// resumed starts from a journal's input state: its files but the last
// were read to their end.
func (ms *marks) resumed(st readstate.State) {
	ms.mu.Lock()
	ms.done, ms.start = append(ms.done, st.Files[:len(st.Files)-1]...), st
	ms.mu.Unlock()
}

// last is the mark of the last document read, nil when none is kept.
func (ms *marks) last() *mark {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	if len(ms.list) == 0 {
		return nil
	}
	m := ms.list[len(ms.list)-1]
	return &m
}

// at drops the marks before document next-1 and returns its mark with
// the parts read to their end before it; false when none is kept
// (nothing was written since this process started: see started).
func (ms *marks) at(next int64) (mark, []readstate.File, bool) {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	i := 0
	for i < len(ms.list) && ms.list[i].seq < next-1 {
		i++
	}
	ms.list = ms.list[i:]
	if len(ms.list) == 0 || ms.list[0].seq != next-1 {
		return mark{}, nil, false
	}
	m := ms.list[0]
	return m, append([]readstate.File(nil), ms.done[:m.ndone]...), true
}

// started is where this process started.
func (ms *marks) started() readstate.State {
	ms.mu.Lock()
	defer ms.mu.Unlock()
	return ms.start
}
