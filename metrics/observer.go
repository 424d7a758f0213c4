package metrics

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"qa-shard/scheduler"
)

// observer turns scheduler events into metric updates.
type observer struct {
	m *runMetrics
	s *stateMetrics
}

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
func (o observer) Progress(p scheduler.Progress) {
	o.m.expected.Set(orNaN(float64(p.DocsTotal), p.DocsTotal > 0))
	o.m.progress.Set(orNaN(p.Fraction, p.Fraction >= 0))
	o.m.eta.Set(orNaN(p.ETA.Seconds(), p.ETA >= 0))
	o.m.queue.WithLabelValues(QueueDocsInFlight).Set(float64(p.DocsInFlight))
	o.m.queue.WithLabelValues(QueueWindowsPooled).Set(float64(p.WindowsPooled))
	o.m.queue.WithLabelValues(QueueBatchesQueued).Set(float64(p.BatchesQueued))
	if p.State != "" {
		o.s.setState(p.State)
	}
}

// orNaN is v when known, else NaN.
func orNaN(v float64, known bool) float64 {
	if known {
		return v
	}
	return math.NaN()
}

// add adds n to c, ignoring negative n: Counter.Add panics on a negative
// value, and a bad count must not crash the pipeline goroutine that
// reported it.
func add(c prometheus.Counter, n int) {
	if n > 0 {
		c.Add(float64(n))
	}
}
