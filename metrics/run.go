package metrics

import (
	"math"

	"github.com/prometheus/client_golang/prometheus"
)

// Label values for records_total and queue_depth.
const (
	RecordAnswer = "answer"
	RecordError  = "error"

	QueueDocsInFlight  = "docs_in_flight"
	QueueWindowsPooled = "windows_pooled"
	QueueBatchesQueued = "batches_queued"
)

// BatchBuckets are the batch_duration_seconds buckets: 1 ms (a tiny model on
// a GPU) to 5 min (a large batch on a slow CPU), about 2.5x apart so each
// decade has two or three buckets.
var BatchBuckets = []float64{
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
	1, 2.5, 5, 10, 25, 60, 120, 300,
}

// runMetrics are the metrics the Observer updates.
type runMetrics struct {
	documents     prometheus.Counter
	records       *prometheus.CounterVec
	windows       prometheus.Counter
	tokens        prometheus.Counter
	padded        prometheus.Counter
	batches       *prometheus.CounterVec
	batchDuration *prometheus.HistogramVec
	failures      *prometheus.CounterVec
	progress      prometheus.Gauge
	eta           prometheus.Gauge
	expected      prometheus.Gauge
	queue         *prometheus.GaugeVec
	deadline      prometheus.Gauge // registered only when a launcher tells it
}

func newRunMetrics() *runMetrics {
	m := &runMetrics{
		documents: counter("documents_total", "Documents written by this process (resumed ones excluded)."),
		records: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "records_total",
			Help: "Records written, by kind (answer or error)."}, []string{"kind"}),
		windows: counter("windows_total", "Windows run through a model."),
		tokens:  counter("tokens_total", "Real (unpadded) tokens run through a model."),
		padded:  counter("padded_tokens_total", "Token positions run through a model, padding included."),
		batches: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "batches_total",
			Help: "Batches run, by replica."}, []string{"replica"}),
		batchDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: Namespace,
			Name: "batch_duration_seconds", Help: "Time to run one batch, by replica.",
			Buckets: BatchBuckets}, []string{"replica"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: Namespace, Name: "failures_total",
			Help: `Failed batches, by replica and kind ("out of memory", "fatal", "error").`},
			[]string{"replica", "kind"}),
		progress: gauge("progress_ratio", "Fraction of this process's work done, in input bytes (resumed documents included); NaN while the total is unknown."),
		eta:      gauge("eta_seconds", "Estimated seconds to the end of the run; NaN while unknown."),
		expected: gauge("documents_expected", "Documents in the corpus (this rank's share); NaN while unknown."),
		queue: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: Namespace, Name: "queue_depth",
			Help: "Items waiting in the pipeline, by queue."}, []string{"queue"}),
		deadline: gauge("deadline_timestamp_seconds", deadlineGaugeDoc),
	}
	// Unknown until the first Progress: NaN, not 0, because 0 would read as
	// "done" (ETA) or "empty corpus" (expected).
	m.progress.Set(math.NaN())
	m.eta.Set(math.NaN())
	m.expected.Set(math.NaN())
	// Series with fixed label values exist from the start, so rate() and
	// dashboards see 0 rather than no data before the first event.
	m.records.WithLabelValues(RecordAnswer)
	m.records.WithLabelValues(RecordError)
	for _, q := range []string{QueueDocsInFlight, QueueWindowsPooled, QueueBatchesQueued} {
		m.queue.WithLabelValues(q)
	}
	return m
}

func (m *runMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.documents, m.records, m.windows, m.tokens, m.padded,
		m.batches, m.batchDuration, m.failures, m.progress, m.eta, m.expected, m.queue}
}

func counter(name, help string) prometheus.Counter {
	return prometheus.NewCounter(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help})
}

func gauge(name, help string) prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Namespace: Namespace, Name: name, Help: help})
}
