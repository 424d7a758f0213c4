package gpu

import (
	"errors"
	"testing"
)

// Select without NVML: the default falls back to the CPU, GPU specs fail.
func TestSelectWithoutNVML(t *testing.T) {
	for _, tc := range []struct {
		spec  string
		names []string
		bad   bool
	}{
		{spec: "cpu", names: []string{"cpu:0"}},
		{spec: " cpu:3 ", names: []string{"cpu:0", "cpu:1", "cpu:2"}},
		{spec: "cpu:0", bad: true},
		{spec: "cpu:x", bad: true},
		{spec: "", names: []string{"cpu:0"}},
		{spec: "all", names: []string{"cpu:0"}},
		{spec: "GPU-c0ffee", bad: true},
		{spec: "0,1", bad: true},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := Select(tc.spec, nil, ErrNoDriver, func(string) (string, bool) { return "", false })
			ds := s.Devices
			if tc.bad {
				if !errors.Is(err, ErrSelection) {
					t.Fatalf("Select(%q) = %v, %v; want ErrSelection", tc.spec, ds, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(ds) != len(tc.names) {
				t.Fatalf("got %d devices, want %d", len(ds), len(tc.names))
			}
			for i, d := range ds {
				if d.Name() != tc.names[i] {
					t.Errorf("device %d = %s, want %s", i, d.Name(), tc.names[i])
				}
			}
		})
	}
}
