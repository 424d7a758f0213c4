package scheduler

import "time"

// Shaper shapes the work per replica: whether a replica takes batches now
// (which session layout is in use) and how many tokens its next batch may
// hold, learning from every batch that ran. Package tune implements it;
// without one every replica takes batches of Config.MaxBatchTokens. Its
// methods are called from several goroutines.
type Shaper interface {
	// Budget is the token budget of replica's next batch, asked when there
	// is work for it: > 0 the budget (the batch is then cut and handed
	// over); 0 the replica waits (its layout is not the one in use); < 0 it
	// takes no more work in this run (its layout was set aside).
	Budget(replica string) int
	// Done tells the Shaper, before each Ran, the share of this run's work
	// done (input bytes whose windows ran, over the bytes this run has to
	// do; negative when unknown, as for standard input), so it can bound
	// its own cost by the run's size.
	Done(share float64)
	// Ran reports, once per batch Budget gave a budget for, that the
	// replica is done with it: the budget it was cut at (0 when it does not
	// measure that budget: split after a failure, or cut short because its
	// run of windows ran out before the budget was reached), the real
	// tokens and padded positions that ran, and how long the device took.
	Ran(replica string, budget, tokens, padded int, d time.Duration)
	// OutOfMemory reports a batch of padded positions that did not fit the
	// replica's device.
	OutOfMemory(replica string, padded int)
	// Retired reports a replica that failed for good.
	Retired(replica string)
	// Using says whether replica is in the session layout in use now; the
	// others are the layout search's extra sessions, shown as such (or
	// not at all when they ran nothing).
	Using(replica string) bool
}

// DeviceTimer is implemented by simulated replicas (worker/sim), which
// know how long their simulated device took for the latest batch: the
// Shaper then learns from that rather than from the host's clock. No
// replica of the program implements it; it is the one optional interface
// the scheduler looks for.
type DeviceTimer interface{ DeviceTime() time.Duration }

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
func (s *serveStage) ran(r *replica, b *batch, t *tally) {
	if s.shaper == nil {
		return
	}
	budget := b.budget
	if !t.whole || t.padded == 0 {
		budget = 0 // split, or handed back before it ran: no measure
	}
	s.shaper.Done(s.progress.runShare())
	s.shaper.Ran(r.Name(), budget, t.tokens, t.padded, t.d)
}
