package sim

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"qa-shard/gpu"
	"qa-shard/internal/errkind"
)

// ErrSpec marks a --devices sim value that cannot be parsed; the CLI maps
// it to a usage error.
var ErrSpec = errkind.NewUser("simulated devices")

// maxReplicas matches the bound gpu.Select puts on cpu:N.
const maxReplicas = 256

// FromSpec builds the replicas a spec describes (grammar in the package
// comment), named sim:0, sim:1, ...
func FromSpec(spec string) ([]*Replica, error) {
	opts, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	rs := make([]*Replica, len(opts))
	for i, o := range opts {
		rs[i] = New(o)
	}
	return rs, nil
}

// entry is one value of a fault list; target -1 means every replica.
type entry struct {
	value  int64
	target int
}

// parsed collects the items before the replica count is known, since a
// fault's target can only be checked against it.
type parsed struct {
	count   int
	speeds  []float64
	rate    float64
	jitter  float64
	seed    uint64
	recur   bool
	virtual bool
	curve   Curve
	faults  map[string][]entry
}

// faultKeys are the keys taking value[@i] lists, with their least value.
var faultKeys = map[string]int64{"oom-above": 1, "fatal-after": 0, "hang-after": 0, "fail-token": 1}

// parseSpec returns the options of every replica a spec describes.
func parseSpec(spec string) ([]Options, error) {
	s := strings.TrimSpace(spec)
	if !gpu.Simulated(s) {
		return nil, fmt.Errorf("%w: %q does not start with \"sim\"", ErrSpec, spec)
	}
	p := parsed{rate: DefaultRate, seed: 1, faults: map[string][]entry{}}
	seen := map[string]bool{}
	if rest, ok := strings.CutPrefix(s, "sim:"); ok {
		for _, item := range strings.Split(rest, ":") {
			if err := p.item(strings.TrimSpace(item), seen); err != nil {
				return nil, fmt.Errorf("%w: %q: %w", ErrSpec, spec, err)
			}
		}
	}
	opts, err := p.options()
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %w", ErrSpec, spec, err)
	}
	return opts, nil
}

func (p *parsed) item(item string, seen map[string]bool) error {
	if item == "" {
		return errors.New("empty item (two colons in a row, or a trailing colon)")
	}
	key, val, hasVal := strings.Cut(item, "=")
	if !hasVal && item != "recur" && item != "virtual" {
		key = "count"
	}
	if seen[key] {
		return fmt.Errorf("%s is given twice", key)
	}
	seen[key] = true
	switch {
	case key == "recur" || key == "virtual":
		if hasVal {
			return fmt.Errorf("%s takes no value", key)
		}
		p.recur = p.recur || key == "recur"
		p.virtual = p.virtual || key == "virtual"
	case !hasVal:
		n, err := strconv.Atoi(item)
		if err != nil {
			return fmt.Errorf("unknown item %q: expected a replica count or key=value", item)
		}
		if n < 1 || n > maxReplicas {
			return fmt.Errorf("replica count %d is not between 1 and %d", n, maxReplicas)
		}
		p.count = n
	case key == "speeds":
		for _, f := range strings.Split(val, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || !(v > 0) || v > 1e6 {
				return fmt.Errorf("speed %q is not a number above 0", f)
			}
			p.speeds = append(p.speeds, v)
		}
		if len(p.speeds) > maxReplicas {
			return fmt.Errorf("%d speeds: at most %d replicas", len(p.speeds), maxReplicas)
		}
	case key == "rate":
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v > 0) || v > 1e12 {
			return fmt.Errorf("rate %q is not a number of tokens per second above 0", val)
		}
		p.rate = v
	case key == "jitter":
		v, err := strconv.ParseFloat(val, 64)
		if err != nil || !(v >= 0 && v < 1) {
			return fmt.Errorf("jitter %q is not a fraction in [0, 1)", val)
		}
		p.jitter = v
	case key == "seed":
		v, err := strconv.ParseUint(val, 10, 64)
		if err != nil {
			return fmt.Errorf("seed %q is not an unsigned integer", val)
		}
		p.seed = v
	default:
		if known, err := p.curve.item(key, val); known {
			return err
		}
		least, ok := faultKeys[key]
		if !ok {
			return fmt.Errorf("unknown key %q (known: speeds, rate, jitter, seed, %s, oom-above, fatal-after, hang-after, fail-token, recur, virtual)", key, curveKeys)
		}
		es, err := entries(key, val, least)
		if err != nil {
			return err
		}
		p.faults[key] = es
	}
	return nil
}

// entries parses "V[@i],V[@i]...".
func entries(key, val string, least int64) ([]entry, error) {
	var out []entry
	for _, part := range strings.Split(val, ",") {
		v, at, hasAt := strings.Cut(strings.TrimSpace(part), "@")
		e := entry{target: -1}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < least {
			return nil, fmt.Errorf("%s value %q is not an integer of at least %d", key, v, least)
		}
		e.value = n
		if hasAt {
			i, err := strconv.Atoi(at)
			if err != nil || i < 0 {
				return nil, fmt.Errorf("%s target %q is not a replica index", key, at)
			}
			e.target = i
		}
		out = append(out, e)
	}
	return out, nil
}

func (p *parsed) options() ([]Options, error) {
	n := max(p.count, 1)
	if p.speeds != nil {
		if p.count != 0 && p.count != len(p.speeds) {
			return nil, fmt.Errorf("count %d and %d speeds disagree", p.count, len(p.speeds))
		}
		n = len(p.speeds)
	}
	opts := make([]Options, n)
	for i := range opts {
		opts[i] = Options{Name: fmt.Sprintf("sim:%d", i), Index: i, Rate: p.rate, Speed: 1,
			Jitter: p.jitter, Seed: p.seed, Faults: Faults{Recur: p.recur}, Curve: p.curve}
		if p.virtual {
			opts[i].Sleep = virtualSleep
		}
		if p.speeds != nil {
			opts[i].Speed = p.speeds[i]
		}
	}
	// Sorted keys: with several mistakes, the same one is reported.
	for _, key := range slices.Sorted(maps.Keys(p.faults)) {
		es := p.faults[key]
		set := make([]bool, n)
		for _, e := range es {
			if e.target >= n {
				return nil, fmt.Errorf("%s targets replica %d, but there are %d (indices start at 0)", key, e.target, n)
			}
			for i := range opts {
				if e.target != -1 && e.target != i {
					continue
				}
				if set[i] {
					return nil, fmt.Errorf("%s is given twice for replica %d", key, i)
				}
				set[i] = true
				apply(&opts[i].Faults, key, e.value)
			}
		}
	}
	return opts, nil
}

func apply(f *Faults, key string, v int64) {
	switch key {
	case "oom-above":
		f.OOMAbove = int(v)
	case "fatal-after":
		f.Fatal, f.FatalAfter = true, int(v)
	case "hang-after":
		f.Hang, f.HangAfter = true, int(v)
	case "fail-token":
		f.FailToken = v
	}
}
