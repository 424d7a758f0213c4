package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"time"

	"qa-shard/internal/isa"
	"qa-shard/tokenizer/modeldir"
)

// timeLoad times modeldir.Open on a model folder, the way qa-shard reads a
// folder's tokenizer at start (tokenizer.json read, or slow files
// converted), reps times, and prints the median and the fastest in
// milliseconds with where the tokenizer came from.
func timeLoad(dir string, reps int) error {
	var ms []float64
	var origin string
	for range reps {
		start := time.Now()
		_, o, err := modeldir.Open(dir)
		if err != nil {
			return fmt.Errorf("open %s: %w", dir, err)
		}
		ms = append(ms, float64(time.Since(start).Microseconds())/1000)
		origin = o.Converter
	}
	sort.Float64s(ms)
	if origin == "" {
		origin = "tokenizer.json"
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"median_ms": ms[len(ms)/2], "min_ms": ms[0], "origin": origin})
}

// cpuName is this CPU and its instruction set, for the tables' header.
func cpuName() string { return isa.CPUName() + ", " + isa.Detect().String() }
