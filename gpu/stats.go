package gpu

import (
	"fmt"
	"strings"
)

// gpuStats accumulates one GPU's samples; the Sampler's mutex guards it.
type gpuStats struct {
	index int
	uuid  string

	off      map[string]bool // metrics that failed once
	offOrder []string

	latest    Sample
	samples   int
	utilSum   float64
	utilN     int
	peakMem   int64
	maxTemp   int
	throttled float64
	reasons   uint64
	remapP    bool
	remapF    bool
}

func newGPUStats(index int, uuid string) *gpuStats {
	return &gpuStats{index: index, uuid: uuid, off: map[string]bool{}, peakMem: -1, maxTemp: -1}
}

func (g *gpuStats) unavailableList() []string {
	if len(g.offOrder) == 0 {
		return nil
	}
	return append([]string(nil), g.offOrder...)
}

// add folds one sample in. Throttled time is the time since the previous
// sample when this one saw a throttle reason (0 for the first sample).
func (g *gpuStats) add(s Sample) {
	if s.Throttled() && g.samples > 0 {
		g.throttled += s.At.Sub(g.latest.At).Seconds()
	}
	g.samples++
	g.latest = s
	if s.UtilPercent >= 0 {
		g.utilSum += float64(s.UtilPercent)
		g.utilN++
	}
	g.peakMem = max(g.peakMem, s.MemUsed)
	g.maxTemp = max(g.maxTemp, s.TempC)
	g.reasons |= s.ClockReasons
	g.remapP = g.remapP || s.RemapPending
	g.remapF = g.remapF || s.RemapFailed
}

func (g *gpuStats) summary() Summary {
	mean := -1.0
	if g.utilN > 0 {
		mean = g.utilSum / float64(g.utilN)
	}
	return Summary{Index: g.index, UUID: g.uuid, Samples: g.samples, MeanUtil: mean, PeakMem: g.peakMem,
		MaxTempC: g.maxTemp, ThrottledSeconds: g.throttled, ThrottleReasons: g.reasons,
		RemapPending: g.remapP, RemapFailed: g.remapF, Unavailable: g.unavailableList()}
}

// String is the sample as one short field of a progress line:
// "gpu0 87% 31.2GiB 64C 350W", "-" for what the GPU does not report.
func (s Sample) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "gpu%d %s %s %s %s", s.Index, orDash(s.UtilPercent >= 0, "%d%%", s.UtilPercent),
		orDash(s.MemUsed >= 0, "%.1fGiB", gib(s.MemUsed)), orDash(s.TempC >= 0, "%dC", s.TempC),
		orDash(s.PowerW >= 0, "%.0fW", s.PowerW))
	if s.Throttled() {
		fmt.Fprintf(&b, " throttled(%#x)", s.ClockReasons&ThrottleMask)
	}
	if s.RemapPending || s.RemapFailed || s.RetiredPending {
		b.WriteString(" memory-errors")
	}
	return b.String()
}

// String is the summary as one line for the end-of-run report.
func (s Summary) String() string {
	line := fmt.Sprintf("gpu%d %s: %d samples, mean utilization %s, peak memory %s, max temperature %s, throttled %.0f s",
		s.Index, s.UUID, s.Samples, orDash(s.MeanUtil >= 0, "%.1f%%", s.MeanUtil),
		orDash(s.PeakMem >= 0, "%.1f GiB", gib(s.PeakMem)), orDash(s.MaxTempC >= 0, "%d C", s.MaxTempC), s.ThrottledSeconds)
	if s.ThrottleReasons&ThrottleMask != 0 {
		line += fmt.Sprintf(" (reasons %#x)", s.ThrottleReasons&ThrottleMask)
	}
	if s.RemapPending || s.RemapFailed {
		line += fmt.Sprintf(", row remapping pending=%t failed=%t", s.RemapPending, s.RemapFailed)
	}
	if len(s.Unavailable) > 0 {
		line += ", unavailable: " + strings.Join(s.Unavailable, " ")
	}
	return line
}

func orDash(ok bool, format string, v any) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf(format, v)
}

func gib(b int64) float64 { return float64(b) / (1 << 30) }
