// Package tune finds by measurement how to run a model fastest on a class
// of identical devices (the CPU; GPUs of one model, provider and
// precision): the session layout (sessions x threads per device) and the
// token budget of each batch. It learns from the run's own batches, whose
// answers are kept, so searching wastes no work, only some speed: it
// compares neighbouring budgets batch by batch (interleaved, so a change
// of load hits both sides), climbs while the larger or smaller budget is
// faster, measures each candidate layout the same way, keeps the best,
// and searches again when throughput drifts. Out of memory marks the
// largest budget. The choice is cached per (device model, ONNX Runtime
// version, model fingerprint, precision), so the next run starts there;
// a search cut short (its share of the run spent, or the run ended) is
// cached as far as it got, and the next run continues it.
//
// A Tuner implements the scheduler's Shaper; it has no goroutines, reads
// no clock (durations come with the batches), and is safe for concurrent
// use.
package tune

import (
	"strings"
	"sync"
	"time"

	"qa-shard/internal/words"

	"go.uber.org/zap"
)

// Key identifies a replica class in the cache.
type Key struct {
	Device string `json:"device"` // CPU model and cores, or GPU model and provider
	// ISA is the CPU's instruction set for CPU classes ("AVX2", "AVX-512
	// VNNI", "AMX", see internal/isa): one CPU model name covers machines
	// with and without VNNI, whose int8 (and float32) kernels differ, so a
	// shape measured on one is not reused on the other. Entries written
	// before it existed have none and are measured again.
	ISA       string `json:"isa,omitempty"`
	Runtime   string `json:"runtime"`   // ONNX Runtime version
	Model     string `json:"model"`     // the model directory's fingerprint
	Precision string `json:"precision"` // fp32, fp16, int8
}

func (k Key) String() string {
	return strings.Join([]string{k.Device, k.ISA, k.Runtime, k.Model, k.Precision}, "|")
}

// Layout is one way to run a class's devices: Sessions sessions per
// device with Threads intra-op threads each (0: the runtime's choice);
// Replicas names the scheduler replicas that make it up.
type Layout struct {
	Sessions, Threads int
	Replicas          []string
}

func (l Layout) String() string {
	s := words.Count(l.Sessions, "session", "sessions")
	if l.Threads > 0 {
		s += " x " + words.Count(l.Threads, "thread", "threads")
	}
	return s
}

// Class is a set of identical devices and what may be chosen for them. A
// run whose layout or budget the user pinned does not write the cache: it
// did not measure everything.
type Class struct {
	Name         string // for logs and the summary, e.g. "cpu"
	Key          Key
	Layouts      []Layout // candidates, in the order they are measured
	PinnedLayout bool     // the user chose the layout (the only candidate)
	PinnedBudget bool     // the user chose the budget (the only candidate)
	// Alternate: a waiting layout keeps its sessions open (the CPU), so the
	// two fastest layouts alternate in turns before one is kept; otherwise
	// (GPUs, whose memory the waiting sessions would hold) the fastest of
	// the searches is kept.
	Alternate bool
	Budgets   []int // candidate token budgets, ascending
	Start     int   // index in Budgets where the search begins
}

// Options configure a Tuner; zero search settings take the defaults.
type Options struct {
	Classes []Class
	Cache   *Cache // nil: nothing is read or written
	Logger  *zap.Logger
	// Fallback is the budget of replicas no class names.
	Fallback int

	MinBatches int           // batches per side of a comparison (4)
	MinTime    time.Duration // device time per side of a comparison (100ms)
	Margin     float64       // how much faster a challenger must be (0.03)
	EarlyGap   float64       // a gap that decides after two batches a side (0.15)
	Window     int           // batches (and 10 MinTime) per drift check while holding (16)
	Drift      float64       // relative change of throughput, twice in a row, that re-opens the search (0.25)
	// Share bounds the search: the batches run while searching (first
	// search and re-searches together) may stand for at most this share of
	// the class's projected run time (0.02). The projection is the wall
	// time of the class's batches so far over the share of the run's work
	// done (Done); without it (unknown total) the search is not bounded.
	// The projection runs long while searching (the search's own batches
	// are the slower shapes, the first ones warm up), so 0.02 keeps the
	// search under 5% of the run as measured.
	Share float64
}

func (o *Options) defaults() {
	if o.MinBatches <= 0 {
		o.MinBatches = 4
	}
	if o.MinTime <= 0 {
		o.MinTime = 100 * time.Millisecond
	}
	if o.Margin <= 0 {
		o.Margin = 0.03
	}
	if o.EarlyGap <= 0 {
		o.EarlyGap = 0.15
	}
	if o.Window <= 0 {
		o.Window = 16
	}
	if o.Drift <= 0 {
		o.Drift = 0.25
	}
	if o.Share <= 0 {
		o.Share = 0.02
	}
	if o.Fallback <= 0 {
		o.Fallback = 8192
	}
	if o.Logger == nil {
		o.Logger = zap.NewNop()
	}
}

// Tuner shapes the batches of every class; see the package comment.
type Tuner struct {
	mu      sync.Mutex
	opt     Options
	classes []*class
	members map[string]member
	done    float64 // share of the run's work done; <= 0 unknown
}

// member places a replica: its class and layout.
type member struct {
	c      *class
	layout int
}

// New sets up every class: pinned, from the cache, or to be searched.
func New(o Options) *Tuner {
	o.defaults()
	t := &Tuner{opt: o, members: map[string]member{}}
	for _, spec := range o.Classes {
		c := newClass(spec, &t.opt)
		t.classes = append(t.classes, c)
		for i, l := range spec.Layouts {
			for _, name := range l.Replicas {
				t.members[name] = member{c: c, layout: i}
			}
		}
	}
	return t
}

// Initial names the replicas of the layouts each class starts with: the
// sessions worth opening before the run.
func (t *Tuner) Initial() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, c := range t.classes {
		out = append(out, c.spec.Layouts[c.active].Replicas...)
	}
	return out
}

// Using says whether replica is in the layout its class uses now (true
// for a replica of no class).
func (t *Tuner) Using(replica string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.members[replica]
	return !ok || (m.layout == m.c.active && !m.c.aside[m.layout])
}

// MaxBudget is the largest budget any class may plan.
func (t *Tuner) MaxBudget() int {
	m := 0
	for _, c := range t.classes {
		m = max(m, c.spec.Budgets[len(c.spec.Budgets)-1])
	}
	if m == 0 {
		return t.opt.Fallback
	}
	return m
}

// Budget is the budget of replica's next batch: > 0 a budget, 0 wait, < 0
// take no more work (its layout was set aside).
func (t *Tuner) Budget(replica string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	m, ok := t.members[replica]
	if !ok {
		return t.opt.Fallback
	}
	return m.c.budget(replica, m.layout)
}

// Done tells the tuner what share of this run's work is done (in [0, 1];
// negative when the run's size is unknown), which bounds the search's
// cost (Options.Share).
func (t *Tuner) Done(share float64) {
	t.mu.Lock()
	t.done = share
	t.mu.Unlock()
}

// Ran learns from a batch that ran: the budget it was cut at, its real
// tokens and padded positions, and the device time it took.
func (t *Tuner) Ran(replica string, budget, tokens, padded int, d time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.members[replica]; ok {
		m.c.done = t.done
		m.c.ran(replica, m.layout, budget, tokens, d)
		m.c.pace()
	}
}

// OutOfMemory marks budgets of padded tokens and more as too large for the
// replica's class.
func (t *Tuner) OutOfMemory(replica string, padded int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.members[replica]; ok {
		m.c.outOfMemory(m.layout, padded)
	}
}

// Retired notes a replica that failed for good; a layout left without
// replicas gives way to another.
func (t *Tuner) Retired(replica string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if m, ok := t.members[replica]; ok {
		m.c.retired(replica, m.layout)
	}
}

// Report is what each class chose and what finding it cost.
func (t *Tuner) Report() []Choice {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make([]Choice, len(t.classes))
	for i, c := range t.classes {
		out[i] = c.choice()
	}
	return out
}

// Save writes to the cache the classes whose choice was measured, and the
// searches that did not finish, as far as they got (the next run
// continues them).
func (t *Tuner) Save() error {
	if t.opt.Cache == nil {
		return nil
	}
	t.mu.Lock()
	var es []Entry
	var ss []Search
	for _, c := range t.classes {
		if e, ok := c.entry(); ok {
			es = append(es, e)
		} else if s, ok := c.partial(); ok {
			ss = append(ss, s)
		}
	}
	t.mu.Unlock()
	if len(es) == 0 && len(ss) == 0 {
		return nil
	}
	return t.opt.Cache.Save(es, ss...)
}
