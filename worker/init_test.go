package worker

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestInitMissingLibrary runs Init in a child process: ONNX Runtime is
// loaded once per process, and TestMain has loaded it here already.
func TestInitMissingLibrary(t *testing.T) {
	if mode := os.Getenv(childEnv); mode != "" {
		path := "/nonexistent/libonnxruntime.so"
		if mode == "empty" {
			path = ""
		}
		err := Init(path)
		fmt.Printf("config=%v err=%v\n", errors.Is(err, ErrConfig), err)
		return
	}
	cases := []struct{ mode, want string }{
		{"missing", "/nonexistent/libonnxruntime.so not found"},
		{"empty", "no ONNX Runtime library given"},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run", "^TestInitMissingLibrary$")
			cmd.Env = append(os.Environ(), childEnv+"="+c.mode, EnvORTLib+"=")
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("child: %v\n%s", err, out)
			}
			s := string(out)
			if !strings.Contains(s, "config=true") || !strings.Contains(s, c.want) || !strings.Contains(s, "make ort") || !strings.Contains(s, EnvORTLib) {
				t.Errorf("child output lacks ErrConfig, %q, `make ort` or %s:\n%s", c.want, EnvORTLib, s)
			}
		})
	}
}

// TestInitOnce: after a successful Init the same path is fine, another
// path is an error naming the loaded library, and Version reports it.
func TestInitOnce(t *testing.T) {
	model(t, "tiny") // fails the test if TestMain's Init failed
	if err := Init(ortLib); err != nil {
		t.Errorf("Init with the loaded library: %v", err)
	}
	err := Init(ortLib + ".other")
	if err == nil || !strings.Contains(err.Error(), "already loaded from "+ortLib) {
		t.Errorf("Init with another library: %v, want an already-loaded error", err)
	}
	if Version() == "" {
		t.Error("Version is empty after Init")
	}
}
