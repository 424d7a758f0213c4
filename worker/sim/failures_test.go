package sim

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"qa-shard/worker"
)

func TestOOMAboveTokenCount(t *testing.T) {
	r, rec := newRecorded(Options{Faults: Faults{OOMAbove: 100}})
	ctx := context.Background()
	if _, err := r.Run(ctx, uniform(10, 10, 1000)); err != nil {
		t.Fatalf("100 tokens with oom-above=100: %v", err)
	}
	_, err := r.Run(ctx, uniform(11, 10, 1000))
	if err == nil || !strings.Contains(err.Error(), "Failed to allocate memory for requested buffer of size") {
		t.Fatalf("110 tokens with oom-above=100: err %v, want ONNX Runtime's OOM text", err)
	}
	if !strings.Contains(err.Error(), "sim:0") {
		t.Errorf("error %q does not name the replica", err)
	}
	if re := (*worker.RunError)(nil); !errors.As(err, &re) || !re.OutOfMemory() {
		t.Errorf("error %v is not a worker.RunError saying out of memory", err)
	}
	// Not sticky: a smaller batch runs again.
	if _, err := r.Run(ctx, uniform(5, 10, 1000)); err != nil {
		t.Fatalf("after an OOM, a small batch: %v", err)
	}
	if len(rec.delays) != 2 {
		t.Fatalf("%d sleeps, want 2: a failed batch must fail fast", len(rec.delays))
	}
	if st := r.Stats(); st.Batches != 2 || st.Failures != 1 {
		t.Fatalf("stats %+v, want 2 batches and 1 failure", st)
	}
}

const fatalText = "CUDA failure 700: an illegal memory access was encountered"

func TestFatalAfterIsSticky(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{Fatal: true, FatalAfter: 3}})
	ctx := context.Background()
	for i := range 3 {
		if _, err := r.Run(ctx, uniform(1, 8, 1000)); err != nil {
			t.Fatalf("batch %d before the fault: %v", i, err)
		}
	}
	for i := range 4 {
		_, err := r.Run(ctx, uniform(1, 8, 1000))
		if err == nil || !strings.Contains(err.Error(), fatalText) {
			t.Fatalf("call %d after 3 batches: err %v, want the sticky CUDA error", i, err)
		}
		if re := (*worker.RunError)(nil); !errors.As(err, &re) || !re.Fatal() {
			t.Fatalf("error %v is not a worker.RunError saying fatal", err)
		}
	}
	if st := r.Stats(); st.Batches != 3 || st.Failures != 4 {
		t.Fatalf("stats %+v, want 3 batches and 4 failures", st)
	}
}

func TestFatalAfterZeroFailsFirstCall(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{Fatal: true}})
	if _, err := r.Run(context.Background(), uniform(1, 8, 1000)); err == nil || !strings.Contains(err.Error(), fatalText) {
		t.Fatalf("fatal-after=0: err %v, want the CUDA error on the first call", err)
	}
}

func TestResetHealsTransientFatal(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{Fatal: true, FatalAfter: 1}})
	ctx := context.Background()
	run := func() error { _, err := r.Run(ctx, uniform(1, 8, 1000)); return err }
	if err := run(); err != nil {
		t.Fatal(err)
	}
	if err := run(); err == nil {
		t.Fatal("second call: no fatal error")
	}
	r.Reset()
	for i := range 5 {
		if err := run(); err != nil {
			t.Fatalf("call %d after Reset without recur: %v", i, err)
		}
	}
}

func TestResetWithRecurFailsAgain(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{Fatal: true, FatalAfter: 2, Recur: true}})
	ctx := context.Background()
	run := func() error { _, err := r.Run(ctx, uniform(1, 8, 1000)); return err }
	for life := range 3 {
		for i := range 2 {
			if err := run(); err != nil {
				t.Fatalf("life %d, batch %d: %v", life, i, err)
			}
		}
		if err := run(); err == nil || !strings.Contains(err.Error(), fatalText) {
			t.Fatalf("life %d, third call: err %v, want the CUDA error again", life, err)
		}
		r.Reset()
	}
}

// TestHangAfterBlocksUntilCancel runs in a synctest bubble: Wait returns
// once the third call is durably blocked, so "has not returned" is a state
// observed, not a delay waited out, and a call that never returned after
// the cancel would be reported as a deadlock.
func TestHangAfterBlocksUntilCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r, _ := newRecorded(Options{Faults: Faults{Hang: true, HangAfter: 2}})
		bg := context.Background()
		for i := range 2 {
			if _, err := r.Run(bg, uniform(1, 8, 1000)); err != nil {
				t.Fatalf("batch %d before the hang: %v", i, err)
			}
		}
		ctx, cancel := context.WithCancel(bg)
		errc := make(chan error, 1)
		go func() { _, err := r.Run(ctx, uniform(1, 8, 1000)); errc <- err }()
		synctest.Wait()
		select {
		case err := <-errc:
			t.Fatalf("the third call returned %v before its context was canceled", err)
		default:
		}
		cancel()
		if err := <-errc; !errors.Is(err, context.Canceled) {
			t.Fatalf("hung call returned %v, want context.Canceled", err)
		}
		// The hang fires once: the next call runs.
		if _, err := r.Run(bg, uniform(1, 8, 1000)); err != nil {
			t.Fatalf("call after the hang: %v", err)
		}
	})
}

func TestHangHonorsDeadline(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{Hang: true}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := r.Run(ctx, uniform(1, 8, 1000)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("hang with a deadline: %v, want DeadlineExceeded", err)
	}
}

func TestFailToken(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{FailToken: 901}})
	ctx := context.Background()
	if _, err := r.Run(ctx, batchOf([]int64{101, 5, 6, 102}, []int64{101, 7, 102})); err != nil {
		t.Fatalf("batch without 901: %v", err)
	}
	_, err := r.Run(ctx, batchOf([]int64{101, 5, 6, 102}, []int64{101, 901, 102}))
	if err == nil || !strings.Contains(err.Error(), "idx=901") {
		t.Fatalf("batch holding 901: err %v, want the out-of-bounds index error", err)
	}
	if re := (*worker.RunError)(nil); !errors.As(err, &re) || re.Fault != worker.FaultInput {
		t.Fatalf("error %v is not a worker.RunError caused by the input", err)
	}
	// Not sticky, and only attended positions count.
	if _, err := r.Run(ctx, batchOf([]int64{101, 8, 102})); err != nil {
		t.Fatalf("next batch: %v", err)
	}
}

func TestFailTokenIgnoresPadding(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{FailToken: 7}})
	b := batchOf([]int64{1, 2, 3}, []int64{4})
	b.InputIDs[4] = 7 // a padding position (mask 0) holding the id
	if _, err := r.Run(context.Background(), b); err != nil {
		t.Fatalf("id 7 at a padding position: %v", err)
	}
}

func TestSleepRespectsCancel(t *testing.T) {
	// The real timer: a batch that would take an hour returns on cancel.
	r := New(Options{Name: "sim:0", Rate: 1})
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { _, err := r.Run(ctx, uniform(60, 60, 1000)); errc <- err }()
	// Cancel later, so that the call is most likely asleep by then.
	time.AfterFunc(20*time.Millisecond, cancel)
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("canceled sleep returned %v", err)
		}
	case <-time.After(time.Minute): // a hang guard
		t.Fatal("Run kept sleeping after cancel")
	}
	if st := r.Stats(); st.Batches != 0 || st.Failures != 1 {
		t.Fatalf("stats %+v, want no batch and one failure", st)
	}
}

func TestMalformedBatch(t *testing.T) {
	r, _ := newRecorded(Options{})
	b := uniform(2, 4, 1000)
	b.AttentionMask = b.AttentionMask[:7]
	if _, err := r.Run(context.Background(), b); err == nil {
		t.Fatal("a mask shorter than Rows*Len was accepted")
	}
}

func TestCanceledBeforeRun(t *testing.T) {
	r, rec := newRecorded(Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Run(ctx, uniform(1, 8, 1000)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run on a canceled context: %v", err)
	}
	if len(rec.delays) != 0 {
		t.Fatal("a canceled call still slept")
	}
}

func TestRebuildIsReset(t *testing.T) {
	r, _ := newRecorded(Options{Faults: Faults{Fatal: true}})
	if _, err := r.Run(context.Background(), uniform(1, 8, 1000)); err == nil {
		t.Fatal("no fatal error")
	}
	if err := r.Rebuild(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Run(context.Background(), uniform(1, 8, 1000)); err != nil {
		t.Fatalf("after Rebuild: %v", err)
	}
}
