package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"qa-shard/commands/devices"
	"qa-shard/gpu"
)

// TestDevicesExitCodes: no driver is a normal answer (0); a broken NVML,
// sampling without a driver and a comparison that cannot be made exit 1;
// command-line mistakes exit 2. NVML is replaced by what it would return.
func TestDevicesExitCodes(t *testing.T) {
	noDriver := func() (devices.NVML, error) {
		return nil, fmt.Errorf("%w: nvmlInit: ERROR_LIBRARY_NOT_FOUND", gpu.ErrNoDriver)
	}
	broken := func() (devices.NVML, error) {
		return nil, errors.New("NVML initialisation failed: ERROR_LIB_RM_VERSION_MISMATCH")
	}
	for _, tc := range []struct {
		name string
		open func() (devices.NVML, error)
		args []string
		code int
		want string // in the output (0) or the error (others)
	}{
		{"no driver", noDriver, nil, exitOK, devices.NoDriverLine},
		{"no driver, json", noDriver, []string{"--json"}, exitOK, `"driver": false`},
		{"help", noDriver, []string{"--help"}, exitOK, "Usage: qa-shard devices"},
		{"broken NVML", broken, nil, exitInternal, "ERROR_LIB_RM_VERSION_MISMATCH"},
		{"sample without a driver", noDriver, []string{"--sample", "1s"}, exitInternal, "no NVIDIA driver"},
		{"compare without a driver", noDriver, []string{"--compare-smi", "smi.csv"}, exitInternal, "no NVIDIA driver"},
		{"unknown flag", noDriver, []string{"--bogus"}, exitUsage, "unknown flag: --bogus"},
		{"argument", noDriver, []string{"gpu0"}, exitUsage, `unexpected argument "gpu0"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			var err error
			code, stdout, _ := capture(t, func() int {
				err = devices.List(tc.args, tc.open, &out)
				return exitCode(err)
			})
			text := out.String() + stdout
			if code != exitOK {
				text = err.Error()
			}
			if code != tc.code || !strings.Contains(text, tc.want) {
				t.Errorf("exit %d (%v), want %d with %q in:\n%s", code, err, tc.code, tc.want, text)
			}
		})
	}
}

// TestDevicesCheckWithGPUsGivenAndNoDriver: --check, the batch scripts'
// preflight, fails (exit 2) on a node whose launcher gave the process
// GPUs (CUDA_VISIBLE_DEVICES) when no driver is found, instead of letting
// the job fall back to the CPU; without CUDA_VISIBLE_DEVICES, or with it
// empty (no GPUs given), no driver passes as before, and so does --devices
// cpu (the CPU is what the run asks for, whatever the launcher gave).
func TestDevicesCheckWithGPUsGivenAndNoDriver(t *testing.T) {
	noDriver := func() (devices.NVML, error) {
		return nil, fmt.Errorf("%w: nvmlInit: ERROR_LIBRARY_NOT_FOUND", gpu.ErrNoDriver)
	}
	for _, tc := range []struct {
		cvd  string
		set  bool
		code int
	}{{"0,1", true, exitUsage}, {"GPU-c0ffee00", true, exitUsage}, {"", true, exitOK}, {"", false, exitOK}} {
		if tc.set {
			t.Setenv("CUDA_VISIBLE_DEVICES", tc.cvd)
		} else {
			t.Setenv("CUDA_VISIBLE_DEVICES", "")
			must(t, os.Unsetenv("CUDA_VISIBLE_DEVICES"))
		}
		var out bytes.Buffer
		err := devices.List([]string{"--check", "--ort-lib", ortLib}, noDriver, &out)
		if code := exitCode(err); code != tc.code || (code != exitOK && !strings.Contains(err.Error(), "CUDA_VISIBLE_DEVICES="+tc.cvd+" gives this process GPUs")) {
			t.Errorf("CUDA_VISIBLE_DEVICES=%q (set %v): exit %d (%v), want %d", tc.cvd, tc.set, code, err, tc.code)
		}
	}
	t.Setenv("CUDA_VISIBLE_DEVICES", "0")
	for _, spec := range []string{"cpu", "cpu:2"} {
		var out bytes.Buffer
		if err := devices.List([]string{"--check", "--ort-lib", ortLib, "--devices", spec}, noDriver, &out); err != nil {
			t.Errorf("--check --devices %s with CUDA_VISIBLE_DEVICES=0 and no driver: %v, want it to pass", spec, err)
		}
	}
}

// TestDevicesOnThisMachine: whatever NVML this machine has (none in CI),
// the subcommand answers with exit 0.
func TestDevicesOnThisMachine(t *testing.T) {
	if code, stdout, stderr := capture(t, func() int { return dispatch([]string{"devices"}) }); code != exitOK {
		t.Errorf("qa-shard devices: exit %d\n%s%s", code, stdout, stderr)
	}
}
