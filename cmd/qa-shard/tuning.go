package main

import (
	"fmt"

	"go.uber.org/zap"

	"qa-shard/cli"
	"qa-shard/fleet"
	"qa-shard/journal"
	"qa-shard/tune"
)

// startTuner sets up what chooses the session layout and the token budget
// per batch by measurement (package tune): the cache, keyed with the
// model's fingerprint (fp, or computed here when the run has none), and
// the sessions the run starts with, opened now so that a model the device
// cannot run is refused before any output is written.
func startTuner(o *cli.Run, fl *fleet.Fleet, fp string, log *zap.Logger) (*tune.Tuner, error) {
	var cache *tune.Cache
	if fl.Tunable() {
		if cache = tune.OpenNamed(o.TuneCache, log); cache != nil && fp == "" {
			var err error
			if fp, err = journal.FingerprintModel(o.Model); err != nil {
				return nil, fmt.Errorf("fingerprinting --model for the tuning cache: %w", err)
			}
		}
	}
	tn := fl.Tuner(fp, cache, log)
	if err := fl.Open(tn.Initial()); err != nil {
		return nil, err
	}
	return tn, nil
}

// saveTuning keeps what this run measured for the next one; a cache that
// cannot be written costs the next run a search, not this run its result.
func saveTuning(tn *tune.Tuner, log *zap.Logger) {
	if err := tn.Save(); err != nil {
		log.Warn("tuning cache not saved: the next run measures again", zap.Error(err))
	}
}
