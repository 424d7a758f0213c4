package scheduler

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.uber.org/zap"
)

// log writes one progress line: documents written, percent of the work
// and its ETA, current rates.
func (p *progress) log(log *zap.Logger, s snapshot, r rates, eta time.Duration, status func() string) {
	fields := []zap.Field{zap.Int64("docs", p.base+s.docs)}
	if n, est := p.shownTotal(); n > 0 {
		fields = append(fields, zap.Int64("total", n))
		if est {
			fields = append(fields, zap.Bool("total_estimated", true))
		}
	}
	if f := p.fraction(s); f >= 0 {
		fields = append(fields, zap.Float64("percent", round2(100*f)))
	}
	if eta >= 0 {
		fields = append(fields, zap.Duration("eta", eta.Round(time.Second)))
	}
	if p.stopping.Load() {
		fields = append(fields, zap.Bool("stopping", true))
	}
	fields = append(fields, zap.Float64("docs_per_s", round2(r.docs)), zap.Float64("windows_per_s", round2(r.windows)),
		zap.Float64("input_mb_per_s", round2(r.bytes/1e6)), zap.Int64("errors", p.errors.Load()))
	for _, name := range p.shown(r.perRep) {
		fields = append(fields, zap.Float64("windows_per_s_"+name, round2(r.perRep[name])))
	}
	if status != nil {
		if st := status(); st != "" {
			fields = append(fields, zap.String("devices", st))
		}
	}
	log.Info("progress", fields...)
}

// barLine is the live bar's one line of text.
func (p *progress) barLine(s snapshot, r rates, eta time.Duration, status func() string) string {
	var b strings.Builder
	if f := min(1, p.fraction(s)); f >= 0 {
		const width = 24
		n := int(f * width)
		fmt.Fprintf(&b, "[%s%s] %5.1f%%  ", strings.Repeat("=", n), strings.Repeat(" ", width-n), 100*f)
	}
	if n, est := p.shownTotal(); n > 0 {
		fmt.Fprintf(&b, "%d/%s%d docs", p.base+s.docs, map[bool]string{true: "~"}[est], n)
	} else {
		fmt.Fprintf(&b, "%d docs", p.base+s.docs)
	}
	fmt.Fprintf(&b, "  %.1f docs/s  %.0f win/s", r.docs, r.windows)
	if eta >= 0 {
		fmt.Fprintf(&b, "  ETA %s", eta.Round(time.Second))
	}
	if p.stopping.Load() {
		b.WriteString("  stopping")
	}
	if e := p.errors.Load(); e > 0 {
		fmt.Fprintf(&b, "  %d errors", e)
	}
	var reps []string
	for _, name := range p.shown(r.perRep) {
		reps = append(reps, fmt.Sprintf("%s %.0f", p.label(name), r.perRep[name]))
	}
	fmt.Fprintf(&b, "  | win/s: %s", strings.Join(reps, " "))
	if status != nil {
		if st := status(); st != "" {
			fmt.Fprintf(&b, " | %s", st)
		}
	}
	return b.String()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
