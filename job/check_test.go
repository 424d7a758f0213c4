package job

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// TestWarnings: more CPU sessions than cores is said once; a sensible
// --devices is not.
func TestWarnings(t *testing.T) {
	o := DeviceOptions{Devices: fmt.Sprintf("cpu:%d", runtime.NumCPU()+1)}
	if w := o.Warnings(); len(w) != 1 || !strings.Contains(w[0], "cores") {
		t.Errorf("warnings for %s: %q", o.Devices, w)
	}
	for _, d := range []string{"cpu", "cpu:1", "all", "0,1"} {
		if w := (DeviceOptions{Devices: d}).Warnings(); len(w) != 0 {
			t.Errorf("warnings for %s: %q", d, w)
		}
	}
}
