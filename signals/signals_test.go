package signals

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

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
