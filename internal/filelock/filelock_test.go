package filelock

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// envHolder makes the test binary a process that holds a lock until its
// standard input closes (see TestMain).
const envHolder = "FILELOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if target := os.Getenv(envHolder); target != "" {
		l, err := Acquire(target, "holder")
		if err != nil {
			fmt.Println("error:", err)
			os.Exit(1)
		}
		fmt.Println("locked")
		_, _ = bufio.NewReader(os.Stdin).ReadString('\n') // until the test closes it
		l.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holder starts a process that holds target's lock; it returns once the
// lock is held.
func holder(t *testing.T, target string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envHolder+"="+target)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); _ = cmd.Wait() }) // killed: Wait says so
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "locked\n" {
		t.Fatalf("holder process: %q", line)
	}
	return cmd
}

// TestHeldNamesTheHolder: a second Acquire fails at once with the lock
// file and the holder's pid, host and command; after Release the lock
// file is gone and the lock can be taken again.
func TestHeldNamesTheHolder(t *testing.T) {
	target := filepath.Join(t.TempDir(), "answers.jsonl")
	l, err := Acquire(target, "qa-shard --output answers.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// flock belongs to the open file, so a second open in the same
	// process conflicts as another process would.
	_, err = Acquire(target, "second")
	var held *HeldError
	if !errors.As(err, &held) || !errors.Is(err, ErrHeld) {
		t.Fatalf("second Acquire: %v, want a *HeldError", err)
	}
	host, _ := os.Hostname()
	if held.Holder.PID != os.Getpid() || held.Holder.Host != host || held.Path != target+".lock" {
		t.Errorf("holder %+v at %s, want pid %d host %s at %s.lock", held.Holder, held.Path, os.Getpid(), host, target)
	}
	for _, want := range []string{target + ".lock", fmt.Sprintf("pid %d", os.Getpid()), "qa-shard --output answers.jsonl"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message lacks %q: %v", want, err)
		}
	}
	if err := l.Release(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(target + ".lock"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("lock file after Release: %v", err)
	}
	l, err = Acquire(target, "third")
	if err != nil {
		t.Fatalf("Acquire after Release: %v", err)
	}
	l.Release()
}

// TestKilledHolderReleases: another process holds the lock (refused,
// naming its pid); SIGKILL leaves the lock file behind but the kernel
// drops the lock, so the next Acquire takes it.
func TestKilledHolderReleases(t *testing.T) {
	target := filepath.Join(t.TempDir(), "answers.jsonl")
	cmd := holder(t, target)
	_, err := Acquire(target, "second")
	var held *HeldError
	if !errors.As(err, &held) || held.Holder.PID != cmd.Process.Pid || held.Holder.Command != "holder" {
		t.Fatalf("Acquire while pid %d holds it: %v", cmd.Process.Pid, err)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait() // killed: Wait says so
	if _, err := os.Stat(target + ".lock"); err != nil {
		t.Fatalf("the killed holder's lock file should remain: %v", err)
	}
	l, err := Acquire(target, "after the kill")
	if err != nil {
		t.Fatalf("Acquire after SIGKILL of the holder: %v", err)
	}
	defer l.Release()
	b, _ := os.ReadFile(target + ".lock")
	if !strings.Contains(string(b), fmt.Sprintf(`"pid":%d`, os.Getpid())) || !strings.Contains(string(b), "after the kill") {
		t.Errorf("lock file after the takeover: %s", b)
	}
}

// TestAcquireAll: distinct targets do not block each other; a set that
// cannot be completed releases what it took.
func TestAcquireAll(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "logits")+"/"
	s, err := AcquireAll("one", a, "", "-", c)
	if err != nil || len(s) != 2 {
		t.Fatalf("AcquireAll: %d locks, %v", len(s), err)
	}
	if s[1].Path() != filepath.Join(dir, "logits.lock") {
		t.Errorf("lock of a folder: %s", s[1].Path())
	}
	other, err := AcquireAll("two", b)
	if err != nil {
		t.Fatalf("a distinct output is blocked: %v", err)
	}
	other.Release()
	if _, err := AcquireAll("three", b, a); !errors.Is(err, ErrHeld) {
		t.Fatalf("AcquireAll over a held target: %v", err)
	}
	if l, err := Acquire(b, "four"); err != nil {
		t.Fatalf("the failed AcquireAll kept %s locked: %v", b, err)
	} else {
		l.Release()
	}
	s.Release()
}

// TestUnsupported: the errors of a file system without locks are
// ErrUnsupported and keep their cause; others are not.
func TestUnsupported(t *testing.T) {
	for _, e := range []error{syscall.ENOLCK, syscall.ENOSYS, syscall.EOPNOTSUPP} {
		if err := lockError("x.lock", e); !errors.Is(err, ErrUnsupported) || !errors.Is(err, e) || !strings.Contains(err.Error(), "Lustre") {
			t.Errorf("%v: %v", e, err)
		}
	}
	if err := lockError("x.lock", syscall.EBADF); errors.Is(err, ErrUnsupported) {
		t.Errorf("EBADF classified as unsupported: %v", err)
	}
}
