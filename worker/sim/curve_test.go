package sim

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestCurveCosts(t *testing.T) {
	// Rate 1000 tokens/s: a token costs 1 ms at speed 1.
	c := Curve{Overhead: 5 * time.Millisecond, RowCost: 2 * time.Millisecond, Cliff: 100, CliffFactor: 3}
	r, rec := newRecorded(Options{Rate: 1000, Curve: c})
	for _, tc := range []struct {
		rows, l int
		want    time.Duration
	}{
		{1, 8, (5 + 2 + 8) * time.Millisecond},
		{10, 10, (5 + 20 + 100) * time.Millisecond},   // at the cliff: plain cost
		{20, 10, (5 + 40 + 3*200) * time.Millisecond}, // one doubling above: every token 3x
		{40, 10, (5 + 80 + 9*400) * time.Millisecond}, // two: 9x
	} {
		if _, err := r.Run(context.Background(), uniform(tc.rows, tc.l, 1000)); err != nil {
			t.Fatal(err)
		}
		if got := rec.last(); got != tc.want {
			t.Errorf("%dx%d: delay %v, want %v", tc.rows, tc.l, got, tc.want)
		}
		if got := r.DeviceTime(); got != tc.want {
			t.Errorf("%dx%d: DeviceTime %v, want the delay %v", tc.rows, tc.l, got, tc.want)
		}
	}
}

func TestCurveDriftsAfterBatches(t *testing.T) {
	// After 3 successful batches the speed halves and the cliff drops to 50
	// tokens; a failed batch does not count, and Reset does not restart it.
	c := Curve{Cliff: 1000, CliffFactor: 2, DriftAfter: 3, DriftSpeed: 0.5, DriftCliff: 50}
	// 100 tokens: under the first cliff; one doubling over the drifted one.
	r, rec := newRecorded(Options{Rate: 1000, Curve: c, Faults: Faults{OOMAbove: 500}})
	ctx := context.Background()
	b := uniform(10, 10, 1000) // 100 tokens: under the first cliff, above the drifted one
	var delays []time.Duration
	for i := range 5 {
		if i == 1 {
			if _, err := r.Run(ctx, uniform(60, 10, 1000)); err == nil {
				t.Fatal("600 tokens with oom-above=500 ran")
			}
			r.Reset()
		}
		if _, err := r.Run(ctx, b); err != nil {
			t.Fatal(err)
		}
		delays = append(delays, rec.last())
	}
	want := []time.Duration{100, 100, 100, 400, 400} // ms: 100 tokens; drifted: /0.5, and x2 for one doubling
	for i := range want {
		if delays[i] != want[i]*time.Millisecond {
			t.Fatalf("batch %d: delay %v, want %v (all %v)", i, delays[i], want[i]*time.Millisecond, delays)
		}
	}
}

func TestParseSpecCurve(t *testing.T) {
	opts, err := parseSpec("sim:2:overhead=2ms:row-cost=150us:cliff=2048:cliff-factor=3:drift-after=40:drift-speed=0.5:drift-cliff=512:virtual")
	if err != nil {
		t.Fatal(err)
	}
	want := Curve{Overhead: 2 * time.Millisecond, RowCost: 150 * time.Microsecond, Cliff: 2048, CliffFactor: 3,
		DriftAfter: 40, DriftSpeed: 0.5, DriftCliff: 512}
	for i, o := range opts {
		if o.Curve != want {
			t.Errorf("replica %d: curve %+v, want %+v", i, o.Curve, want)
		}
		if o.Sleep == nil {
			t.Errorf("replica %d: virtual set no sleep function", i)
		}
	}
	// Virtual replicas do not wait: a batch of an hour's simulated work
	// returns while its DeviceTime says an hour.
	r := New(opts[0])
	b := uniform(1, 8, 1000)
	r.opt.Rate = 8.0 / 3600
	done := make(chan error, 1)
	go func() { _, err := r.Run(context.Background(), b); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a virtual replica slept")
	}
	if r.DeviceTime() < time.Hour {
		t.Fatalf("DeviceTime %v, want at least an hour of simulated work", r.DeviceTime())
	}
	for _, bad := range []string{"sim:overhead=-1ms", "sim:cliff=0", "sim:cliff-factor=x", "sim:drift-after=1.5", "sim:virtual=1", "sim:row-cost=fast"} {
		if _, err := parseSpec(bad); !errors.Is(err, ErrSpec) {
			t.Errorf("ParseSpec(%q): err %v, want ErrSpec", bad, err)
		}
	}
}
