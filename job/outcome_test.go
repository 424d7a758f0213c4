package job

import (
	"context"
	"errors"
	"testing"

	"go.uber.org/zap"

	"qa-shard/internal/errkind"
	"qa-shard/internal/signals"
	"qa-shard/scheduler"
)

// TestDocuments: the count of saved documents reads as a person says it.
func TestDocuments(t *testing.T) {
	for _, tc := range []struct {
		saved, total int64
		want         string
	}{
		{458, 2000, "458 of 2,000 documents"},
		{1, 0, "1 document"},
		{12345, 0, "12,345 documents"},
	} {
		if got := documents(tc.saved, tc.total); got != tc.want {
			t.Errorf("documents(%d, %d) = %q, want %q", tc.saved, tc.total, got, tc.want)
		}
	}
}

// TestJudge: error records within --max-errors pass; past it the outcome
// is of kind Records (exit 3) and says where to look.
func TestJudge(t *testing.T) {
	r := runEnd{Output: "answers.jsonl", MaxErrors: "2"}
	if err := judge(r, zap.NewNop(), scheduler.Summary{Documents: 10, RecordErrors: 2}); err != nil {
		t.Errorf("2 error records within --max-errors 2: %v", err)
	}
	err := judge(r, zap.NewNop(), scheduler.Summary{Documents: 10, RecordErrors: 3})
	const want = "completed with 3 error records (lines or questions that could not be answered; each says why) in answers.jsonl: more than --max-errors 2 tolerates"
	if errkind.Of(err) != errkind.Records || err.Error() != want {
		t.Errorf("3 error records past --max-errors 2: %v (kind %s), want %q (kind records)", err, errkind.Of(err), want)
	}
}

// TestStoppedEarly: a stop by a signal while the model loads is
// resumable whatever error it caused; without one the error is kept.
func TestStoppedEarly(t *testing.T) {
	boom := errors.New("boom")
	if err := stoppedEarly(context.Background(), boom); err != boom { //nolint:errorlint // the same error, unwrapped, is what is tested
		t.Errorf("no stop: %v, want boom itself", err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(&signals.Stopped{Signal: "SIGTERM"})
	err := stoppedEarly(ctx, context.Canceled)
	const want = "stopped by SIGTERM while the model loaded; nothing was written: rerun the same command"
	if errkind.Of(err) != errkind.Resumable || err.Error() != want {
		t.Errorf("stopped: %v (kind %s), want %q (resumable)", err, errkind.Of(err), want)
	}
}
