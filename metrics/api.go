// Package metrics exposes a run's progress to Prometheus: what the scheduler
// reports through scheduler.Observer (documents, records, windows, tokens,
// batches and their latency per replica, failures, progress, ETA, queue
// depths, the run's state) and, read at scrape time, the GPU sampler's
// latest readings and the last checkpoint's time.
//
// It depends on scheduler (for the Observer interface) and gpu (for Sample);
// neither depends on it, so the pipeline runs the same with metrics off.
package metrics

import (
	"errors"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"qa-shard/gpu"
	"qa-shard/scheduler"
)

// Namespace prefixes every metric of the program.
const Namespace = "qa_shard"

// Identity names the process the metrics come from. Every series carries
// it as the labels rank and host, so the ranks of one job (several per
// node, on ports the OS chose) stay apart wherever their series meet.
type Identity struct {
	Rank int
	Host string
}

// Registry holds the program's collectors. It wraps its own
// prometheus.Registry rather than the global default so that tests, and two
// runs in one process, never see each other's values or collide on
// registration.
type Registry struct {
	reg        *prometheus.Registry
	registerer prometheus.Registerer // reg with the rank and host labels
	m          *runMetrics
	s          *stateMetrics

	mu        sync.RWMutex
	gpuSource func() []gpu.Sample
}

// new returns a Registry with every run metric, the GPU collector (empty
// until SetGPUSource) and the Go runtime and process collectors
// registered, each series labelled with id.
func new(id Identity) *Registry {
	r := &Registry{reg: prometheus.NewRegistry(), m: newRunMetrics(), s: newStateMetrics()}
	reg := prometheus.WrapRegistererWith(prometheus.Labels{"rank": strconv.Itoa(id.Rank), "host": id.Host}, r.reg)
	reg.MustRegister(r.m.collectors()...)
	reg.MustRegister(r.s.collectors()...)
	r.registerer = reg
	reg.MustRegister(&gpuCollector{source: r.source})
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return r
}

// Observer returns the scheduler.Observer that updates r's metrics. Its
// methods only touch atomic counters and gauges, so they never block the
// pipeline goroutines that call them.
func (r *Registry) Observer() scheduler.Observer { return observer{r.m, r.s} }

// SetGPUSource makes every scrape call f for the GPUs' current readings
// (typically the sampler's Latest). Reading at scrape time, instead of
// copying samples into gauges, means a GPU that stops reporting disappears
// from the output rather than showing its last value forever. nil removes
// the source.
func (r *Registry) SetGPUSource(f func() []gpu.Sample) {
	r.mu.Lock()
	r.gpuSource = f
	r.mu.Unlock()
}

// source returns the current GPU source, or nil.
func (r *Registry) source() func() []gpu.Sample {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.gpuSource
}

// Gatherer is the underlying registry, for callers that serve or push the
// metrics themselves.
func (r *Registry) Gatherer() prometheus.Gatherer { return r.reg }

// SetDeadline exports when the launcher will stop the job (Unix seconds)
// as qa_shard_deadline_timestamp_seconds, so an alert can compare it with
// the ETA. Without a call the series does not exist: a made-up deadline
// would fire or silence that alert for nothing.
func (r *Registry) SetDeadline(unixSeconds float64) {
	if err := r.registerer.Register(r.m.deadline); err != nil {
		var are prometheus.AlreadyRegisteredError
		if !errors.As(err, &are) {
			return
		}
	}
	r.m.deadline.Set(unixSeconds)
}
