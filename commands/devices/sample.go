package devices

import (
	"context"
	"fmt"
	"io"
	"time"

	"go.uber.org/zap"

	"qa-shard/gpu"
)

// sample prints telemetry and health of the devices found every interval
// until ctx ends, then the summary: the check a person (or gpu-check.sh)
// runs on a real GPU machine.
func sample(ctx context.Context, w io.Writer, n NVML, found []gpu.Device, every time.Duration, log *zap.Logger) {
	s := n.NewSampler(found, gpu.SamplerOptions{Interval: every, Log: log})
	health := n.WatchHealth(ctx, found, gpu.WatchOptions{Log: log, PollInterval: every})
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		for _, smp := range s.Sample() {
			fmt.Fprintf(w, "%s sample %s unavailable=%v clock_reasons=%#x\n", smp.At.Format(time.TimeOnly), smp, smp.Unavailable, smp.ClockReasons)
		}
		select {
		case h := <-health:
			fmt.Fprintf(w, "health: gpu%d %s xid=%d %s\n", h.Index, h.UUID, h.Xid, h.Reason)
		case <-ctx.Done():
			for h := range health {
				fmt.Fprintf(w, "health: gpu%d %s xid=%d %s\n", h.Index, h.UUID, h.Xid, h.Reason)
			}
			fmt.Fprintln(w, "summary:")
			for _, sum := range s.Summary() {
				fmt.Fprintf(w, "  %s\n", sum)
			}
			return
		case <-t.C:
		}
	}
}
