package sim

import (
	"errors"
	"reflect"
	"testing"
)

func TestParseSpec(t *testing.T) {
	base := func(n int) []Options {
		out := make([]Options, n)
		for i := range out {
			out[i] = Options{Name: "sim:" + string(rune('0'+i)), Index: i, Rate: DefaultRate, Speed: 1, Seed: 1}
		}
		return out
	}
	with := func(n int, f func([]Options)) []Options { o := base(n); f(o); return o }
	for _, tc := range []struct {
		spec string
		want []Options
	}{
		{"sim", base(1)},
		{" sim:3 ", base(3)},
		{"sim:speeds=1,1,0.25", with(3, func(o []Options) { o[2].Speed = 0.25 })},
		{"sim:3:speeds=1,2,1", with(3, func(o []Options) { o[1].Speed = 2 })},
		{"sim:2:rate=1000:jitter=0.05:seed=9", with(2, func(o []Options) {
			for i := range o {
				o[i].Rate, o[i].Jitter, o[i].Seed = 1000, 0.05, 9
			}
		})},
		{"sim:3:oom-above=20000", with(3, func(o []Options) {
			for i := range o {
				o[i].Faults.OOMAbove = 20000
			}
		})},
		{"sim:4:fatal-after=3@2:hang-after=5@1,0@3:fail-token=901@0", with(4, func(o []Options) {
			o[2].Faults.Fatal, o[2].Faults.FatalAfter = true, 3
			o[1].Faults.Hang, o[1].Faults.HangAfter = true, 5
			o[3].Faults.Hang = true
			o[0].Faults.FailToken = 901
		})},
		{"sim:2:fatal-after=0:recur", with(2, func(o []Options) {
			for i := range o {
				o[i].Faults.Fatal, o[i].Faults.Recur = true, true
			}
		})},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := parseSpec(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("ParseSpec(%q)\n got %+v\nwant %+v", tc.spec, got, tc.want)
			}
		})
	}
}

func TestParseSpecErrors(t *testing.T) {
	for _, spec := range []string{
		"", "cpu:2", "simx", "sim:", "sim:0", "sim:257", "sim:x", "sim:2:3", "sim:8::rate=1",
		"sim:rate=0", "sim:rate=-5", "sim:rate=fast", "sim:rate=1:rate=2",
		"sim:jitter=1", "sim:jitter=-0.1",
		"sim:speeds=", "sim:speeds=1,0", "sim:speeds=1,x", "sim:3:speeds=1,1",
		"sim:seed=-1",
		"sim:2:fatal-after=3@2", "sim:2:fatal-after=-1", "sim:2:fatal-after=3@x", "sim:2:fatal-after=3,4@1",
		"sim:2:fatal-after=1@0,2@0", "sim:oom-above=0", "sim:fail-token=0", "sim:hang-after=",
		"sim:recur=1", "sim:count=2", "sim:bogus=1",
	} {
		t.Run(spec, func(t *testing.T) {
			got, err := parseSpec(spec)
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("ParseSpec(%q) = %+v, %v; want ErrSpec", spec, got, err)
			}
		})
	}
}

func TestFromSpec(t *testing.T) {
	rs, err := FromSpec("sim:speeds=1,0.5:rate=100")
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 2 || rs[0].Name() != "sim:0" || rs[1].Name() != "sim:1" {
		t.Fatalf("replicas %v", rs)
	}
	b := uniform(1, 10, 1000)
	if d0, d1 := rs[0].Delay(b), rs[1].Delay(b); d0 != 100e6 || d1 != 200e6 {
		t.Fatalf("delays %v, %v; want 100ms and 200ms", d0, d1)
	}
	if _, err := FromSpec("sim:0"); !errors.Is(err, ErrSpec) {
		t.Fatalf("FromSpec(sim:0): %v", err)
	}
}
