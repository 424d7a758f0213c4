package signals

import (
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"go.uber.org/zap"
)

// TestIgnoredStaysIgnored: a process started with SIGHUP ignored (nohup)
// keeps ignoring it: closing the terminal does not stop the run.
func TestIgnoredStaysIgnored(t *testing.T) {
	if os.Getenv("QA_SHARD_SIGNALS_CHILD") == "1" {
		h, release := Handle(0, zap.NewNop())
		defer release()
		syscall.Kill(os.Getpid(), syscall.SIGHUP)
		syscall.Kill(os.Getpid(), syscall.SIGTERM)
		<-h.Context.Done()
		os.Stdout.WriteString(h.Stopped().Error())
		return
	}
	// The shell starts the child with SIGHUP ignored, as nohup does.
	cmd := exec.Command("sh", "-c", `trap "" HUP; exec "$0" -test.run '^TestIgnoredStaysIgnored$'`, os.Args[0])
	cmd.Env = append(os.Environ(), "QA_SHARD_SIGNALS_CHILD=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	if !strings.HasPrefix(string(out), "stopped by SIGTERM") {
		t.Errorf("with SIGHUP ignored, the child says %q, want the SIGTERM stop", out)
	}
}
