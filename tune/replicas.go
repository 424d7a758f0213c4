package tune

import "time"

// replicas is a class's bookkeeping of its replicas: how many of each
// layout still run, which have warmed up in the layout in use, what each
// has in flight, and the layout whose batches must finish before the
// active one starts (so that two layouts never share a device while
// measured).
type replicas struct {
	layouts []Layout
	alive   []int           // replicas not retired, per layout
	warm    map[string]bool // replicas whose first batch in the layout was seen
	out     map[string]int  // batches planned and not yet reported, per replica
	dead    map[string]bool // replicas retired after failures
	drain   int             // layout whose batches must finish before the active one starts; -1 none
	initial int             // the layout the run started with
	opened  map[string]bool // replicas of the initial layout whose first batch was seen
}

func newReplicas(layouts []Layout) replicas {
	r := replicas{layouts: layouts, alive: make([]int, len(layouts)), warm: map[string]bool{}, out: map[string]int{},
		dead: map[string]bool{}, drain: -1, opened: map[string]bool{}}
	for i, l := range layouts {
		r.alive[i] = len(l.Replicas)
	}
	return r
}

// planned notes a batch planned for replica.
func (r *replicas) planned(replica string) { r.out[replica]++ }

// reported notes a batch of replica that came back.
func (r *replicas) reported(replica string) {
	r.out[replica] = max(0, r.out[replica]-1)
	r.endDrain()
}

// draining: the batches of the layout in use before must finish first.
func (r *replicas) draining() bool { return r.drain >= 0 }

// endDrain ends the wait once the layout drained.
func (r *replicas) endDrain() {
	if r.drain >= 0 && r.drained(r.drain) {
		r.drain = -1
	}
}

// drained: no batch of layout l's live replicas is still running.
func (r *replicas) drained(l int) bool {
	for _, name := range r.layouts[l].Replicas {
		if r.out[name] > 0 && !r.dead[name] {
			return false
		}
	}
	return true
}

// move leaves layout from for layout to: from's batches drain first
// unless none is running, and to's replicas warm up again (a session may
// be new).
func (r *replicas) move(from, to int) {
	if !r.drained(from) {
		r.drain = from
	}
	for _, name := range r.layouts[to].Replicas {
		delete(r.warm, name)
	}
}

// warmUp says whether this is replica's first batch in its layout since
// the layout was last taken up: a first batch pays for warming up.
func (r *replicas) warmUp(replica string) bool {
	if r.warm[replica] {
		return false
	}
	r.warm[replica] = true
	return true
}

// retire notes a replica that failed for good and says how many of its
// layout are left.
func (r *replicas) retire(replica string, layout int) int {
	r.dead[replica] = true
	r.endDrain()
	r.alive[layout]--
	return r.alive[layout]
}

// perReplica is d over the layout's replicas running at once.
func (r *replicas) perReplica(d time.Duration, layout int) time.Duration {
	return d / time.Duration(max(1, r.alive[layout]))
}

// opening: the first batch of a replica of the layout the class started
// with (any run pays for it, searched or not).
func (r *replicas) opening(replica string, layout int) bool {
	if layout != r.initial || r.opened[replica] {
		return false
	}
	r.opened[replica] = true
	return true
}
