package metrics

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"qa-shard/scheduler"
)

// observer turns scheduler events into metric updates.
type observer struct{ m *runMetrics }

var _ scheduler.Observer = observer{}

func (o observer) BatchDone(replica string, rows, tokens, padded int, d time.Duration) {
	add(o.m.windows, rows)
	add(o.m.tokens, tokens)
	add(o.m.padded, padded)
	o.m.batches.WithLabelValues(replica).Inc()
	o.m.batchDuration.WithLabelValues(replica).Observe(d.Seconds())
}

func (o observer) Records(answers, errors int) {
	o.m.documents.Inc()
	add(o.m.records.WithLabelValues(RecordAnswer), answers)
	add(o.m.records.WithLabelValues(RecordError), errors)
}

// Failure keeps the scheduler's kind strings as label values ("out of
// memory" included) so a metric and the log line it matches say the same.
func (o observer) Failure(replica, kind string) {
	o.m.failures.WithLabelValues(replica, kind).Inc()
}

// Progress sets the gauges. An unknown total or ETA becomes NaN rather than
// keeping the last value: a stale ETA would look current, and NaN makes
// comparisons in alert rules false instead of firing on a made-up number.
func (o observer) Progress(done, total int64, eta time.Duration, docsInFlight, windowsPooled, batchesQueued int) {
	if total > 0 {
		o.m.expected.Set(float64(total))
		o.m.progress.Set(float64(done) / float64(total))
	} else {
		o.m.expected.Set(math.NaN())
		o.m.progress.Set(math.NaN())
	}
	if eta >= 0 {
		o.m.eta.Set(eta.Seconds())
	} else {
		o.m.eta.Set(math.NaN())
	}
	o.m.queue.WithLabelValues(QueueDocsInFlight).Set(float64(docsInFlight))
	o.m.queue.WithLabelValues(QueueWindowsPooled).Set(float64(windowsPooled))
	o.m.queue.WithLabelValues(QueueBatchesQueued).Set(float64(batchesQueued))
}

// add adds n to c, ignoring negative n: Counter.Add panics on a negative
// value, and a bad count must not crash the pipeline goroutine that
// reported it.
func add(c prometheus.Counter, n int) {
	if n > 0 {
		c.Add(float64(n))
	}
}
