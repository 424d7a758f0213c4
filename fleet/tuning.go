package fleet

import (
	"fmt"

	"go.uber.org/zap"

	"qa-shard/scheduler"
	"qa-shard/tune"
)

// StartTuner sets up what chooses the session layout and the token budget
// per batch by measurement (package tune): the cache named by cacheName
// (tune.OpenNamed: "" the user's cache directory, tune.Off none, or a
// path), keyed with the model's fingerprint fp (computed here from the
// model's files by modelFP when the run has none), and the sessions the run starts
// with, opened now so that a model the device cannot run is refused before
// any output is written.
func (f *Fleet) StartTuner(cacheName string, modelFP func() (string, error), fp string, log *zap.Logger) (*tune.Tuner, error) {
	var cache *tune.Cache
	if f.Tunable() {
		if cache = tune.OpenNamed(cacheName, log); cache != nil && fp == "" {
			var err error
			if fp, err = modelFP(); err != nil {
				return nil, fmt.Errorf("fingerprinting --model for the tuning cache: %w", err)
			}
		}
	}
	tn := f.Tuner(fp, cache, log)
	if err := f.Open(tn.Initial()); err != nil {
		return nil, err
	}
	return tn, nil
}

// SaveTuning keeps what this run measured for the next one; a cache that
// cannot be written costs the next run a search, not this run its result.
func (f *Fleet) SaveTuning(log *zap.Logger) {
	if f.tuner == nil {
		return
	}
	if err := f.tuner.Save(); err != nil {
		log.Warn("tuning cache not saved: the next run measures again", zap.Error(err))
	}
}

// Describe is what the run's summary says of the fleet: the batch shape
// chosen per class and, per GPU, its telemetry over the run.
func (f *Fleet) Describe() (shapes, gpus []string) {
	for _, ch := range f.Choices() {
		shapes = append(shapes, ch.String())
	}
	if f.Summary != nil {
		for _, x := range f.Summary() {
			gpus = append(gpus, x.String())
		}
	}
	return shapes, gpus
}

// Starting is what the start-up line says of the fleet: the labels of the
// replicas that start, and per class what is chosen or measured.
func (f *Fleet) Starting() (replicas, plans []string) {
	if f.tuner == nil {
		for _, r := range f.Replicas {
			replicas = append(replicas, label(r))
		}
		return replicas, nil
	}
	initial := map[string]bool{}
	for _, n := range f.tuner.Initial() {
		initial[n] = true
	}
	for _, r := range f.Replicas {
		if initial[r.Name()] {
			replicas = append(replicas, label(r))
		}
	}
	return replicas, f.tuner.Intent()
}

func label(r scheduler.Replica) string {
	if l := r.Label(); l != "" {
		return l
	}
	return r.Name()
}
