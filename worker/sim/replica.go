package sim

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"qa-shard/qa"
)

// DefaultRate is the padded tokens per second of a speed-1 replica when the
// spec names none: about a full 8192-token batch every 40 ms, slow enough
// that the simulated work dominates the scheduler's own CPU time on two
// cores, fast enough that benchmarks finish in seconds.
const DefaultRate = 200000

// Options configure one simulated replica. The zero Faults inject nothing.
type Options struct {
	Name   string
	Index  int     // device index, as a CUDA error reports it
	Rate   float64 // padded tokens per second at speed 1; <= 0 means DefaultRate
	Speed  float64 // relative speed; <= 0 means 1
	Jitter float64 // relative jitter, 0 <= Jitter < 1
	Seed   uint64
	Faults Faults
	// Curve shapes the latency beyond tokens over Rate (see Curve).
	Curve Curve
	// Sleep waits d or until ctx is done; nil means a timer. Tests pass a
	// recorder so they check the requested delays instead of wall time.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Faults are injected failures. Batches are counted per life: since New or
// the last Reset.
type Faults struct {
	// OOMAbove fails a batch of more than this many padded tokens with ONNX
	// Runtime's out-of-memory text; 0 never does. Not sticky.
	OOMAbove int
	// Fatal makes the call after FatalAfter successful batches fail with a
	// sticky CUDA error: every later call fails the same way until Reset.
	Fatal      bool
	FatalAfter int
	// Hang makes the call after HangAfter successful batches block until
	// its context is done. It fires once per life.
	Hang      bool
	HangAfter int
	// FailToken fails every batch in which this id is attended; 0 never
	// does (0 is the padding id of BERT vocabularies).
	FailToken int64
	// Recur keeps the device faulty across Reset: the counts restart, so
	// the fatal error and the hang come back after as many batches. Without
	// it, Reset heals them for good (a transient fault).
	Recur bool
}

// Stats count what a replica did; Batches, Windows and the token counts
// include successful batches only.
type Stats struct {
	Batches      int64
	Windows      int64 // rows
	Tokens       int64 // attended positions
	PaddedTokens int64 // Rows*Len
	Failures     int64 // calls that returned an error
	// Busy is the wall time spent inside Run, failed calls included.
	Busy time.Duration
	// Simulated is the sum of the delays Run asked for.
	Simulated time.Duration
}

// Replica is a simulated device. Run is safe for concurrent use, although
// the scheduler calls it from one goroutine.
type Replica struct {
	opt Options

	mu        sync.Mutex
	succeeded int  // successful batches this life
	sticky    bool // the fatal error fired and stays until Reset
	fatalDone bool // the fatal error fired (this life, with Recur)
	hangDone  bool // the hang fired (this life, with Recur)

	batches, windows, tokens, padded, failures atomic.Int64
	busy, simulated                            atomic.Int64
	last                                       atomic.Int64 // delay of the latest batch, ns
	lifetime                                   atomic.Int64 // successful batches, never reset (drift)
}

// New makes a replica; options out of range take their defaults.
func New(opt Options) *Replica {
	if opt.Rate <= 0 {
		opt.Rate = DefaultRate
	}
	if opt.Speed <= 0 {
		opt.Speed = 1
	}
	if opt.Jitter < 0 || opt.Jitter >= 1 {
		opt.Jitter = 0
	}
	if opt.Sleep == nil {
		opt.Sleep = sleep
	}
	return &Replica{opt: opt}
}

// Name is the replica's name, e.g. "sim:3".
func (r *Replica) Name() string { return r.opt.Name }

// Label is the name shown to people: the Name.
func (r *Replica) Label() string { return r.opt.Name }

// Idle does nothing: a simulated session holds nothing to give back.
func (r *Replica) Idle(bool) {}

// Options returns the options the replica runs with, defaults applied.
func (r *Replica) Options() Options { return r.opt }

// Reset is what rebuilding a session does to a real device: it clears the
// sticky fatal error and starts a new life, counting batches from zero.
// Without Faults.Recur a fatal error or hang that already fired is gone for
// good (a transient fault); with it, it fires again after as many batches
// (a bad device that a rebuild does not cure).
func (r *Replica) Reset() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.sticky, r.succeeded = false, 0
	if r.opt.Faults.Recur {
		r.fatalDone, r.hangDone = false, false
	}
}

// Rebuild is Reset under the name the scheduler's Replica interface
// asks for; recreating a simulated session cannot fail.
func (r *Replica) Rebuild() error {
	r.Reset()
	return nil
}

// Stats returns the replica's counters so far.
func (r *Replica) Stats() Stats {
	return Stats{
		Batches: r.batches.Load(), Windows: r.windows.Load(),
		Tokens: r.tokens.Load(), PaddedTokens: r.padded.Load(), Failures: r.failures.Load(),
		Busy: time.Duration(r.busy.Load()), Simulated: time.Duration(r.simulated.Load()),
	}
}

// Delay is how long the replica takes for b now: the curve's cost of its
// shape (padded tokens over the rate, plus the curve's overheads and
// cliff, after a drift the drifted curve), scaled by the batch's jitter.
func (r *Replica) Delay(b qa.Batch) time.Duration {
	secs := r.opt.Curve.seconds(b.Rows, b.Tokens(), r.opt.Rate, r.opt.Speed, int(r.lifetime.Load()))
	if r.opt.Jitter > 0 {
		secs *= 1 + r.opt.Jitter*unit(batchHash(b, r.opt.Seed))
	}
	return time.Duration(secs * float64(time.Second))
}

// DeviceTime is the simulated time of the latest batch: what the device
// took, whatever the host's timers did (the scheduler's tuner learns from
// it, so tests on simulated devices are deterministic).
func (r *Replica) DeviceTime() time.Duration { return time.Duration(r.last.Load()) }

// Run simulates one forward pass. Faults are checked first and fail fast,
// as a real allocation failure or a poisoned input does; then the replica
// sleeps its delay and returns the deterministic logits.
func (r *Replica) Run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	start := time.Now()
	defer func() { r.busy.Add(int64(time.Since(start))) }()
	out, err := r.run(ctx, b)
	if err != nil {
		r.failures.Add(1)
		return qa.Logits{}, err
	}
	return out, nil
}

func (r *Replica) run(ctx context.Context, b qa.Batch) (qa.Logits, error) {
	if err := ctx.Err(); err != nil {
		return qa.Logits{}, fmt.Errorf("replica %s: %w", r.opt.Name, err)
	}
	if err := validate(b); err != nil {
		return qa.Logits{}, fmt.Errorf("replica %s: %w", r.opt.Name, err)
	}
	hang, err := r.admit(b)
	if err != nil {
		return qa.Logits{}, err
	}
	if hang {
		<-ctx.Done()
		return qa.Logits{}, fmt.Errorf("replica %s: batch %dx%d hung until canceled: %w", r.opt.Name, b.Rows, b.Len, ctx.Err())
	}
	d := r.Delay(b)
	r.simulated.Add(int64(d))
	r.last.Store(int64(d))
	if err := r.opt.Sleep(ctx, d); err != nil {
		return qa.Logits{}, fmt.Errorf("replica %s: batch %dx%d: %w", r.opt.Name, b.Rows, b.Len, err)
	}
	out := logits(b)
	r.mu.Lock()
	r.succeeded++
	r.mu.Unlock()
	r.batches.Add(1)
	r.lifetime.Add(1)
	r.windows.Add(int64(b.Rows))
	r.padded.Add(int64(b.Tokens()))
	r.tokens.Add(attended(b))
	return out, nil
}

// admit decides, under the lock, whether b fails, hangs or runs.
func (r *Replica) admit(b qa.Batch) (hang bool, err error) {
	f := r.opt.Faults
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.sticky {
		return false, r.fatalErr(b)
	}
	if f.Fatal && !r.fatalDone && r.succeeded >= f.FatalAfter {
		r.sticky, r.fatalDone = true, true
		return false, r.fatalErr(b)
	}
	if f.Hang && !r.hangDone && r.succeeded >= f.HangAfter {
		r.hangDone = true
		return true, nil
	}
	if f.OOMAbove > 0 && b.Tokens() > f.OOMAbove {
		return false, r.oomErr(b)
	}
	if f.FailToken != 0 && holds(b, f.FailToken) {
		return false, r.tokenErr(b)
	}
	return false, nil
}

// validate rejects what a real session would reject before running.
func validate(b qa.Batch) error {
	n := b.Rows * b.Len
	if b.Rows <= 0 || b.Len <= 0 || len(b.InputIDs) != n || len(b.AttentionMask) != n {
		return fmt.Errorf("malformed batch %dx%d (%d ids, %d mask)", b.Rows, b.Len, len(b.InputIDs), len(b.AttentionMask))
	}
	return nil
}

func holds(b qa.Batch, id int64) bool {
	for i, x := range b.InputIDs {
		if x == id && b.AttentionMask[i] != 0 {
			return true
		}
	}
	return false
}

func attended(b qa.Batch) int64 {
	var n int64
	for _, m := range b.AttentionMask {
		if m != 0 {
			n++
		}
	}
	return n
}

// sleep waits d on a timer, returning early with ctx's error when it is
// done, so a canceled run never waits for simulated work.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
