package signals

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/zap"
)

// TestIgnoredStaysIgnored: a process started with SIGHUP ignored (nohup)
// keeps ignoring it: closing the terminal does not stop the run; SIGINT
// ignored at start (a shell's background job) still stops it.
func TestIgnoredStaysIgnored(t *testing.T) {
	if os.Getenv("QA_SHARD_SIGNALS_CHILD") == "1" {
		h, release := Handle(0, zap.NewNop())
		defer release()
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
		syscall.Kill(os.Getpid(), syscall.SIGINT)
		<-h.Context.Done()
		fmt.Print(h.Stopped().Error())
		return
	}
	// The shell starts the child with SIGHUP ignored, as nohup does, and
	// SIGINT ignored, as a non-interactive shell starts a background job.
	cmd := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0" -test.run '^TestIgnoredStaysIgnored$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "QA_SHARD_SIGNALS_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), "stopped by SIGINT") {
		t.Errorf("started with SIGHUP and SIGINT ignored, the child says %q, want the SIGINT stop", out)
	}
}

// TestRepeatCountsOnce: the same signal again within Repeat of the one
// counted is the same delivery (a launcher signalling the process and its
// group); the same signal later, or another signal at once, is a signal
// of its own.
func TestRepeatCountsOnce(t *testing.T) {
	var r repeats
	t0 := time.Unix(1_000_000, 0)
	steps := []struct {
		sig  os.Signal
		at   time.Duration
		same bool
	}{
		{syscall.SIGINT, 0, false},
		{syscall.SIGINT, time.Millisecond, true},
		{syscall.SIGTERM, 2 * time.Millisecond, false},
		{syscall.SIGINT, time.Millisecond + Repeat, false},
		{syscall.SIGINT, time.Millisecond + Repeat + Repeat/2, true},
		{syscall.SIGINT, 2*time.Millisecond + 2*Repeat, false}, // Repeat after the one counted
	}
	for i, s := range steps {
		if got := r.again(s.sig, t0.Add(s.at)); got != s.same {
			t.Errorf("step %d (%v at %v): again = %v, want %v", i, s.sig, s.at, got, s.same)
		}
	}
}
