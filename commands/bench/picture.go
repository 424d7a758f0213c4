package bench

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"time"

	"qa-shard/internal/isa"
)

// picture is everything one Measure measured, and how it is printed.
type picture struct {
	o           options
	load0       string
	docs        int
	shapes      []rawShape
	raw         [][]float64 // tokens/s per shape, one per repetition
	configs     []config
	runs        [][]e2eResult // per configuration, one per repetition
	naive       []naiveResult
	tokRate     float64
	tokN        int
	int8Missing string
}

// Indices of the configurations plan makes.
const (
	cfgPrevious = iota
	cfgByHand
	cfgFirst
	cfgNext
	cfgInt8
)

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (p *picture) bestRaw() int {
	best := 0
	for i := range p.raw {
		if median(p.raw[i]) > median(p.raw[best]) {
			best = i
		}
	}
	return best
}

// walls, docs/s and tokens/s of configuration i over the repetitions.
func (p *picture) wall(i int) float64 {
	var xs []float64
	for _, r := range p.runs[i] {
		xs = append(xs, r.wall.Seconds())
	}
	return median(xs)
}

// paired is the median over the repetitions of f(rep): ratios of runs of
// one repetition, minutes apart at most, so that the machine's load
// changing between repetitions cancels out of each.
func (p *picture) paired(f func(rep int) float64) float64 {
	var xs []float64
	for rep := range p.runs[0] {
		xs = append(xs, f(rep))
	}
	return median(xs)
}

// vsHand is configuration i against the best by hand, in wall-clock time
// (same work: higher is faster) or in tokens per CPU-second.
func (p *picture) vsHand(i int, cpu bool) float64 { return p.vs(i, cfgByHand, cpu) }

func (p *picture) vs(i, j int, cpu bool) float64 {
	return p.paired(func(rep int) float64 {
		a, b := p.runs[i][rep], p.runs[j][rep]
		if cpu {
			return a.tokensPerCPUSec() / b.tokensPerCPUSec()
		}
		return b.wall.Seconds() / a.wall.Seconds()
	})
}

func (p *picture) rate(i int, f func(e2eResult) float64) float64 {
	var xs []float64
	for _, r := range p.runs[i] {
		xs = append(xs, f(r))
	}
	return median(xs)
}

func (p *picture) write(w io.Writer) error {
	var b strings.Builder
	first := p.runs[0][0].sum
	fmt.Fprintf(&b, "\n## qa-shard: the whole picture\n\n")
	fmt.Fprintf(&b, "Model %s; %d documents, %d windows, %d tokens; %d cores (%s), CPU %s, instruction set %s (it decides the int8 kernels); medians of %d interleaved repetitions (the ratios: medians of the ratios within each repetition).\n",
		p.o.Model, p.docs, first.Windows, first.Tokens, runtime.NumCPU(), p.o.Devices, isa.CPUName(), isa.Detect(), p.o.Reps)
	fmt.Fprintf(&b, "Load average (1 minute) %s before, %s after: other processes on the machine skew every wall-clock figure.\n\n", p.load0, loadAvg())
	best := p.bestRaw()
	ceil := median(p.raw[best])
	ceilVsHand := p.paired(func(rep int) float64 { return p.raw[best][rep] / p.runs[cfgByHand][rep].tokensPerSec() })
	fmt.Fprintf(&b, "| run | documents/s | tokens/s | vs by hand | tokens per CPU-second | vs by hand (CPU) | shape |\n|---|---:|---:|---:|---:|---:|---|\n")
	fmt.Fprintf(&b, "| raw model, best shape (the ceiling; fixed full windows) | | %.0f | %.2f | | | %s |\n",
		ceil, ceilVsHand, p.shapes[best])
	for i, c := range p.configs {
		cpu := p.rate(i, e2eResult.tokensPerCPUSec)
		fmt.Fprintf(&b, "| qa-shard %s | %.2f | %.0f | %.3f | %.0f | %.3f | %s |\n", c.label, p.rate(i, e2eResult.docsPerSec),
			p.rate(i, e2eResult.tokensPerSec), p.vsHand(i, false), cpu, p.vsHand(i, true), shapeOf(p.runs[i][len(p.runs[i])-1]))
	}
	var nd, nt, seen []float64
	for _, n := range p.naive {
		nd, nt, seen = append(nd, n.docsPerSec), append(nt, n.tokensPerSec), append(seen, n.seen)
	}
	fmt.Fprintf(&b, "| naive loop: one document at a time, batch 1, truncated at 512 tokens (%d documents; reads %.0f%% of the text) | %.2f | %.0f | | | | 1 session, 1 row |\n",
		p.naive[0].docs, 100*median(seen), median(nd), median(nt))
	if p.int8Missing != "" {
		fmt.Fprintf(&b, "\n(no int8 row: %s does not exist; `qa-shard quantize` makes it)\n", p.int8Missing)
	}
	ratio, ratioCPU := p.vsHand(cfgNext, false), p.vsHand(cfgNext, true)
	fmt.Fprintf(&b, "\nTarget: defaults end to end ≥ 0.95 of the best by hand: wall clock %.3f (next run, from the cache) %s, %.3f (first run, searching); per CPU-second %.3f %s\n",
		ratio, verdict(ratio >= 0.95), p.vsHand(cfgFirst, false), ratioCPU, verdict(ratioCPU >= 0.95))
	if len(p.configs) > cfgInt8 {
		// The same windows both ways (Measure checks), so a ratio of walls is one of tokens/s.
		x, xCPU := p.vs(cfgInt8, cfgNext, false), p.vs(cfgInt8, cfgNext, true)
		fmt.Fprintf(&b, "Target: int8 end to end ≥ 1.7x float32 (defaults, next run) on %s: wall clock %.2fx %s; per CPU-second %.2fx %s\n",
			isa.Detect(), x, verdict(x >= 1.7), xCPU, verdict(xCPU >= 1.7))
	}
	p.writeTuning(&b)
	p.writeRaw(&b)
	p.writeRuns(&b)
	fmt.Fprintf(&b, "\nTokenizer: %.0f tokens/s on one goroutine (%d tokens). Peak RSS %s.\n", p.tokRate, p.tokN, peakRSS())
	_, err := io.WriteString(w, b.String())
	return err
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// shapeOf is what a run used: its tuner's choice.
func shapeOf(r e2eResult) string {
	var parts []string
	for _, ch := range r.choices {
		parts = append(parts, fmt.Sprintf("%s, %d tokens (%s)", ch.Layout, ch.Budget, ch.Source))
	}
	return strings.Join(parts, "; ")
}

// writeTuning: what the first runs chose, what searching cost, measured
// (first run minus next run) and as the tuner estimates it.
func (p *picture) writeTuning(b *strings.Builder) {
	fmt.Fprintf(b, "\n### The tuner\n\n| repetition | chosen | tokens/s | batches searching | time searching | overhead (tuner's estimate) | load |\n|---:|---|---:|---:|---:|---:|---|\n")
	var est []float64
	unfinished := 0
	for rep, r := range p.runs[cfgFirst] {
		for _, ch := range r.choices {
			if ch.Source == "unfinished" {
				unfinished++
			}
			fmt.Fprintf(b, "| %d | %s, %d tokens (%s) | %.0f | %d | %s | %s | %s |\n", rep+1, ch.Layout, ch.Budget, ch.Source, ch.Rate,
				ch.Batches, ch.Searched.Round(time.Millisecond), ch.Overhead.Round(time.Millisecond), r.load)
			est = append(est, ch.Overhead.Seconds())
		}
	}
	over := p.paired(func(rep int) float64 { return (p.runs[cfgFirst][rep].wall - p.runs[cfgNext][rep].wall).Seconds() })
	// A 300-document run of this corpus's mix, at the next run's speed.
	run300 := p.wall(cfgNext) * 300 / float64(p.docs)
	fmt.Fprintf(b, "\nTuning overhead: first run %.1f s - next run %.1f s = %.1f s (medians; the difference: median of each repetition's); a 300-document run of this mix takes about %.0f s, so %.1f%% of it (target ≤ 3%%: %s). The tuner's own estimate: %.1f s (%.1f%%).\n",
		p.wall(cfgFirst), p.wall(cfgNext), over, run300, 100*over/run300, verdict(over/run300 <= 0.03), median(est), 100*median(est)/run300)
	if unfinished > 0 {
		fmt.Fprintf(b, "%d of %d first runs ended before the search did (the corpus is short for this machine's speed now): the next run after each searched again, so first minus next understates the overhead there.\n",
			unfinished, len(p.runs[cfgFirst]))
	}
}

func (p *picture) writeRaw(b *strings.Builder) {
	fmt.Fprintf(b, "\n### Raw model, tokens/s by shape (full windows, fixed inputs, medians)\n\n| layout | rows | tokens/s |\n|---|---:|---:|\n")
	for i, s := range p.shapes {
		fmt.Fprintf(b, "| %s | %d | %.0f |\n", s.layout, s.rows, median(p.raw[i]))
	}
}

func (p *picture) writeRuns(b *strings.Builder) {
	fmt.Fprintf(b, "\n### Every run, in order\n\n| repetition | run | wall | CPU | documents/s | load after |\n|---:|---|---:|---:|---:|---|\n")
	for rep := range p.o.Reps {
		for i, c := range p.configs {
			r := p.runs[i][rep]
			fmt.Fprintf(b, "| %d | %s | %.2f s | %.2f s | %.2f | %s |\n", rep+1, c.label, r.wall.Seconds(), r.cpu.Seconds(), r.docsPerSec(), r.load)
		}
	}
}
