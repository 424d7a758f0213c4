package scheduler

import "time"

// Shaper shapes the work per replica: whether a replica takes batches now
// (which session layout is in use) and how many tokens its next batch may
// hold, learning from every batch that ran. Package tune implements it;
// without one every replica takes batches of Config.MaxBatchTokens. Its
// methods are called from several goroutines.
type Shaper interface {
	// Plan is the token budget of replica's next batch, asked when there is
	// work for it: > 0 the budget (the batch is then cut and handed over);
	// 0 the replica waits (its layout is not the one in use); < 0 it takes
	// no more work in this run (its layout was set aside).
	Plan(replica string) int
	// Ran reports, once per batch Plan gave a budget for, that the replica
	// is done with it: the budget it was cut at (0 when it did not run
	// whole: split after a failure, so it measures nothing), the real
	// tokens and padded positions that ran, and how long the device took.
	Ran(replica string, budget, tokens, padded int, d time.Duration)
	// OutOfMemory reports a batch of padded positions that did not fit the
	// replica's device.
	OutOfMemory(replica string, padded int)
	// Retired reports a replica that failed for good.
	Retired(replica string)
}

// Paced is implemented by a Shaper that bounds its own cost by the run's
// size: before each Ran it hears the share of this run's work done (input
// bytes whose windows ran, over the bytes this run has to do; negative
// when unknown, as for standard input).
type Paced interface{ Done(share float64) }

// DeviceTimer is implemented by replicas that know how long the device
// took for their latest batch (simulated devices): the Shaper then learns
// from that rather than from the host's clock.
type DeviceTimer interface{ DeviceTime() time.Duration }

// Idler is implemented by replicas that can give back what their session
// holds when the Shaper takes them out of use: for a while (forGood false:
// another layout is being measured, this one may come back) or for good
// (its layout was set aside).
type Idler interface{ Idle(forGood bool) }

// plan is the budget of r's next batch: the Shaper's, never above what
// r's device fits after an out-of-memory error.
func (p *pipeline) plan(r *replica) int {
	budget := p.cfg.MaxBatchTokens
	if p.cfg.Shaper != nil {
		budget = p.cfg.Shaper.Plan(r.Name())
	}
	if budget > 0 {
		budget = min(budget, int(r.maxTokens.Load()))
	}
	return budget
}

// tally sums the runs of one granted batch (several when it was split).
type tally struct {
	whole          bool
	tokens, padded int
	d              time.Duration
}

// add counts a run, in device time when the replica knows it.
func (t *tally) add(r *replica, tokens, padded int, d time.Duration) {
	if dt, ok := r.Replica.(DeviceTimer); ok {
		d = dt.DeviceTime()
	}
	t.tokens += tokens
	t.padded += padded
	t.d += d
}

// ran tells the Shaper the replica is done with batch b.
func (p *pipeline) ran(r *replica, b *batch, t *tally) {
	if p.cfg.Shaper == nil {
		return
	}
	budget := b.budget
	if !t.whole || t.padded == 0 {
		budget = 0 // split, or handed back before it ran: no measure
	}
	if pc, ok := p.cfg.Shaper.(Paced); ok {
		pc.Done(p.progress.runShare())
	}
	p.cfg.Shaper.Ran(r.Name(), budget, t.tokens, t.padded, t.d)
}

// idle gives back r's session while the Shaper does not use it.
func (r *replica) idle(forGood bool) {
	if i, ok := r.Replica.(Idler); ok {
		i.Idle(forGood)
	}
}
