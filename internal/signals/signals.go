// Package signals turns the signals an operator or a batch system sends
// into a stop that saves what is done: SIGINT, SIGTERM, SIGHUP and SIGQUIT
// stop at once (the batches in flight are cancelled, the documents done
// are saved); SIGUSR1, Slurm's early warning, drains (no more reading,
// what was read is finished). A stop signal after a stop began ends the
// process at once, the last checkpoint standing; the same signal again
// within Repeat of the one before is that one delivered twice (to the
// process and to its group, as coreutils timeout, scancel and srun do)
// and counts once.
package signals

import (
	"context"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"go.uber.org/zap"
	"golang.org/x/sys/unix"
)

// Stopped is the cause of a context cancelled by a signal: the run was
// stopped on purpose, not failed.
type Stopped struct {
	Signal string // SIGINT, SIGTERM, SIGHUP, SIGQUIT, or SIGUSR1 when its drain ran out of time
	// Drained: the stop came from SIGUSR1 and every document read was
	// finished (the context is not cancelled then; see Handler.Stopped).
	Drained bool
}

func (s *Stopped) Error() string {
	if s.Signal == "SIGUSR1" && !s.Drained {
		return "stopped by SIGUSR1 (the drain timeout ran out)"
	}
	return "stopped by " + s.Signal
}

// stops are the signals that stop the run at once. SIGQUIT is one of
// them rather than Go's stack dump and exit 2, which read as a usage
// error and lose the documents done since the last checkpoint.
var stops = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Repeat is how long after a signal the same signal counts as the same
// one: a launcher that signals the process and its process group
// delivers it twice within a millisecond, and a person who means a
// second stop sends it later.
const Repeat = time.Second

// repeats tells a signal delivered twice from a second one: one per run,
// its goroutine only.
type repeats struct {
	last map[os.Signal]time.Time
}

// again reports whether sig, arriving at now, is the same delivery as the
// last sig counted (within Repeat of it); if not, it counts this one.
func (r *repeats) again(sig os.Signal, now time.Time) bool {
	if r.last == nil {
		r.last = map[os.Signal]time.Time{}
	}
	if prev, ok := r.last[sig]; ok && now.Sub(prev) < Repeat {
		return true
	}
	r.last[sig] = now
	return false
}

// Handler is what Handle starts.
type Handler struct {
	// Context is cancelled, with a *Stopped cause, by SIGINT, SIGTERM,
	// SIGHUP or SIGQUIT, or when a SIGUSR1 drain outlasts its timeout.
	Context context.Context
	// Drain is closed by the first signal of any kind: read no more.
	Drain <-chan struct{}
	first atomic.Pointer[string]
}

// Stopped is the first signal's stop, or nil when none came.
func (h *Handler) Stopped() *Stopped {
	s := h.first.Load()
	if s == nil {
		return nil
	}
	return &Stopped{Signal: *s, Drained: *s == "SIGUSR1"}
}

// Handle installs the handler; release uninstalls it. What each signal
// does is logged.
func Handle(drain time.Duration, log *zap.Logger) (h *Handler, release func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	stop := make(chan struct{})
	h = &Handler{Context: ctx, Drain: stop}
	// SIGHUP ignored at start stays ignored: under nohup a lost
	// terminal must not stop the run. SIGINT is handled even when
	// ignored at start: a non-interactive shell starts its background
	// jobs so (the batch scripts in configs/slurm do), and a SIGINT
	// sent to the process by name is meant.
	var now []os.Signal
	for _, s := range stops {
		if s != syscall.SIGHUP || !signal.Ignored(s) {
			now = append(now, s)
		}
	}
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, append(now, syscall.SIGUSR1)...)
	quit := make(chan struct{})
	go func() {
		var timer <-chan time.Time
		var seen repeats
		stopping := false
		for {
			// Not ctx.Done: after a stop this loop still waits for the
			// signal that ends the process.
			select {
			case <-quit:
				return
			case sig := <-sigs:
				s := unix.SignalName(sig.(syscall.Signal)) // SIGUSR1, not "user defined signal 1"
				if seen.again(sig, time.Now()) {
					log.Info(s+" delivered again at once (to the process and its group): the same signal, counted once; send it again later to end at once",
						zap.String("signal", s))
					continue
				}
				first := h.first.CompareAndSwap(nil, &s)
				if first {
					close(stop)
				}
				switch {
				case sig == syscall.SIGUSR1 && first:
					log.Warn(s+": reading no more documents; finishing those already read, then saving; SIGINT or SIGTERM stops sooner",
						zap.String("signal", s), zap.Duration("drain_timeout", drain))
					timer = time.After(drain)
				case sig == syscall.SIGUSR1:
					log.Warn(s+" again: already stopping", zap.String("signal", s))
				case stopping:
					log.Warn(s+" again: ending now; the journal keeps its last checkpoint, which --resume continues", zap.String("signal", s))
					end(sig.(syscall.Signal))
					return
				default:
					stopping = true
					log.Warn(s+": stopping: cancelling the batches in flight (redone on resume) and saving the documents done; send it again to end at once",
						zap.String("signal", s))
					cancel(&Stopped{Signal: s})
				}
			case <-timer:
				log.Warn("drain timeout: stopping now", zap.Duration("drain_timeout", drain))
				stopping = true
				cancel(&Stopped{Signal: "SIGUSR1"})
			}
		}
	}()
	return h, func() { signal.Stop(sigs); close(quit); cancel(nil) }
}

// end ends the process as sig ends any program: its handler is given
// back to the kernel and the signal raised again. The journal, replaced
// atomically, is at its last checkpoint whatever the process was doing.
// A signal ignored at start would be ignored again: SIGKILL then.
func end(sig syscall.Signal) {
	signal.Reset(sig)
	syscall.Kill(os.Getpid(), sig)
	time.Sleep(time.Second)
	syscall.Kill(os.Getpid(), syscall.SIGKILL)
}
