package sim

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"time"
)

// Curve is a simulated device's speed as a function of the batch shape,
// beyond the plain padded tokens over Rate: a fixed cost per batch (a
// kernel launch, the host side of a call), a cost per row, and a cliff
// above which tokens cost more (the attention scores no longer fit in
// the cache): CliffFactor times more per doubling of the batch beyond
// Cliff, so a batch of 4*Cliff tokens pays CliffFactor squared per token.
// The overhead favours large batches, the cliff small ones: the best
// shape lies between, is known, and can be tuned for.
// After DriftAfter successful batches of the replica's life (Reset does
// not restart the count) the device drifts: DriftSpeed replaces the speed
// and DriftCliff the cliff, where set. The zero Curve is the plain model.
type Curve struct {
	Overhead    time.Duration // per batch
	RowCost     time.Duration // per row
	Cliff       int           // padded tokens; 0: none
	CliffFactor float64       // cost per token per doubling beyond the cliff (> 1 slower)
	DriftAfter  int           // successful batches; 0: no drift
	DriftSpeed  float64       // 0: speed unchanged
	DriftCliff  int           // 0: cliff unchanged
}

// seconds is the cost of a batch of rows rows and tokens padded tokens on
// a device of rate tokens/s at relative speed, after done batches.
func (c Curve) seconds(rows, tokens int, rate, speed float64, done int) float64 {
	cliff := c.Cliff
	if c.DriftAfter > 0 && done >= c.DriftAfter {
		if c.DriftSpeed > 0 {
			speed = c.DriftSpeed
		}
		if c.DriftCliff > 0 {
			cliff = c.DriftCliff
		}
	}
	perToken := 1 / rate
	if cliff > 0 && tokens > cliff && c.CliffFactor > 0 {
		perToken *= math.Pow(c.CliffFactor, math.Log2(float64(tokens)/float64(cliff)))
	}
	secs := c.Overhead.Seconds() + float64(rows)*c.RowCost.Seconds() + float64(tokens)*perToken
	return secs / speed
}

// curveKeys lists the spec keys of a Curve, for error messages.
const curveKeys = "overhead, row-cost, cliff, cliff-factor, drift-after, drift-speed, drift-cliff"

// item parses one spec item of the curve; known is false for other keys.
func (c *Curve) item(key, val string) (known bool, err error) {
	switch key {
	case "overhead", "row-cost":
		d, err := time.ParseDuration(val)
		if err != nil || d < 0 {
			return true, fmt.Errorf("%s %q is not a duration of at least 0 (e.g. 2ms)", key, val)
		}
		if key == "overhead" {
			c.Overhead = d
		} else {
			c.RowCost = d
		}
	case "cliff", "drift-after", "drift-cliff":
		n, err := strconv.Atoi(val)
		if err != nil || n < 1 {
			return true, fmt.Errorf("%s %q is not an integer of at least 1", key, val)
		}
		switch key {
		case "cliff":
			c.Cliff = n
		case "drift-after":
			c.DriftAfter = n
		default:
			c.DriftCliff = n
		}
	case "cliff-factor", "drift-speed":
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v > 0) || v > 1e6 {
			return true, fmt.Errorf("%s %q is not a number above 0", key, val)
		}
		if key == "cliff-factor" {
			c.CliffFactor = v
		} else {
			c.DriftSpeed = v
		}
	default:
		return false, nil
	}
	return true, nil
}

// virtualSleep returns at once: the replica's time is simulated only
// (DeviceTime), so a run takes the host's time and no more.
func virtualSleep(ctx context.Context, _ time.Duration) error { return ctx.Err() }
