package errkind

import (
	"errors"
	"fmt"
	"testing"
)

func TestOf(t *testing.T) {
	user, res, bug, below := NewUser("bad flag"), NewResumable("disk full"), NewInternal("misuse"), NewRecords("below the threshold")
	for _, tc := range []struct {
		err  error
		want Kind
	}{
		{nil, Internal},
		{errors.New("plain"), Internal},
		{bug, Internal},
		{user, User},
		{fmt.Errorf("a: %w", fmt.Errorf("b: %w", user)), User},
		{fmt.Errorf("%w: %w", res, user), Resumable},
		{fmt.Errorf("%w: %w", user, res), Resumable},
		{errors.Join(errors.New("x"), fmt.Errorf("y: %w", user)), User},
		{fmt.Errorf("x: %w", errors.Join(user, fmt.Errorf("z: %w", res))), Resumable},
		{fmt.Errorf("x: %v", user), Internal}, //nolint:errorlint // %v drops the chain: the case tested
		{Mark(Records, errors.New("too many error records")), Records},
		{fmt.Errorf("check: %w", below), Records},
		{fmt.Errorf("%w: %w", below, user), User},
		{Mark(Resumable, fmt.Errorf("stopped: %w", bug)), Resumable},
		{Mark(Records, user), User},
		{Mark(User, res), Resumable},
		{fmt.Errorf("x: %w", Mark(Resumable, errors.New("interrupted"))), Resumable},
	} {
		if got := Of(tc.err); got != tc.want {
			t.Errorf("Of(%v) = %s, want %s", tc.err, got, tc.want)
		}
	}
	if m := Mark(Resumable, fmt.Errorf("x: %w", user)); m.Error() != "x: bad flag" || !errors.Is(m, user) {
		t.Errorf("Mark changed the message or lost the chain: %q", m)
	}
	if !errors.Is(fmt.Errorf("x: %w", user), user) || errors.Is(user, NewUser("bad flag")) {
		t.Error("sentinels must compare by identity, like errors.New")
	}
}
