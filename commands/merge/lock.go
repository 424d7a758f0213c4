package merge

import (
	"errors"
	"fmt"
	"path/filepath"

	"qa-shard/internal/filelock"
	"qa-shard/output"
)

// lock makes the merged output (answers and logits) this process's alone,
// and makes sure no rank is still writing (or is restarted onto) its file
// while it is read. command is written into the lock files for whoever
// finds them held. A rank file that cannot be locked for another reason
// than a holder (a missing folder) is left to Files to report. Release the
// returned set, also on error. A rank file that is itself one of the
// outputs is left to Files to refuse, not reported as held by this
// process.
func lock(answers, logits string, ranks []string, command string) (filelock.Set, error) {
	locks, err := output.Claim(answers, logits, command, true)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range ranks {
		if seen[filepath.Clean(r)] || relation(r, answers) == "is" || (logits != "" && relation(r, logits) == "is") {
			continue // Files reports a rank given twice, or among the outputs
		}
		seen[filepath.Clean(r)] = true
		l, err := filelock.Acquire(r, command)
		switch {
		case errors.Is(err, filelock.ErrHeld):
			return locks, fmt.Errorf("%w (is rank %s still running?)", err, r)
		case err == nil:
			locks = append(locks, l)
		}
	}
	return locks, nil
}
