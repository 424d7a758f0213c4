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
	// Ran reports a batch that ran: the budget it was cut at (0: a part of
	// a split batch), its real tokens and padded positions, and how long
	// the device took.
	Ran(replica string, budget, tokens, padded int, d time.Duration)
	// OutOfMemory reports a batch of padded positions that did not fit the
	// replica's device.
	OutOfMemory(replica string, padded int)
	// Retired reports a replica that failed for good.
	Retired(replica string)
}

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

// ran tells the Shaper how a batch went, in device time when the replica
// knows it.
func (p *pipeline) ran(r *replica, b *batch, tokens int, d time.Duration) {
	if p.cfg.Shaper == nil {
		return
	}
	if dt, ok := r.Replica.(DeviceTimer); ok {
		d = dt.DeviceTime()
	}
	p.cfg.Shaper.Ran(r.Name(), b.budget, tokens, len(b.refs)*b.len, d)
}

// idle gives back r's session while the Shaper does not use it.
func (r *replica) idle(forGood bool) {
	if i, ok := r.Replica.(Idler); ok {
		i.Idle(forGood)
	}
}
