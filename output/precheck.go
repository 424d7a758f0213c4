package output

import (
	"errors"
	"fmt"
	"os"

	"qa-shard/journal"
	"qa-shard/output/logits"
)

// Precheck refuses, before any model is loaded, what Open would refuse
// about the files themselves, changing nothing: an existing output or
// logits folder without --resume or --overwrite, and on --resume a journal
// that is corrupt or missing beside an output, answers that do not match
// it, and a logits folder that is not its own. (Whether the input, model,
// settings or questions changed is Open's to say: that needs the model's
// fingerprint.) Open checks all of it again when it acts.
func Precheck(o Options) error {
	switch {
	case o.Answers == "-" && o.Overwrite:
		return nil
	case o.Answers == "-":
		return journal.CheckFresh(o.Logits)
	case o.Overwrite:
		return nil
	case !o.Resume:
		return journal.CheckFresh(o.Answers, journal.Path(o.Answers), o.Logits)
	}
	st, err := journal.Read(o.Answers)
	switch {
	case errors.Is(err, journal.ErrNoJournal):
		if _, statErr := os.Stat(o.Answers); statErr == nil {
			return fmt.Errorf("%w: %s has no journal, so it cannot be resumed: add --overwrite to start over", journal.ErrExists, o.Answers)
		}
		if _, statErr := os.Stat(o.Logits); o.Logits != "" && statErr == nil {
			return fmt.Errorf("%w: --logits %s exists, but %s has no journal, so the folder is another run's (or its journal was deleted): choose another --logits, or add --overwrite to replace it", journal.ErrExists, o.Logits, o.Answers)
		}
		return nil
	case err != nil:
		return fmt.Errorf("cannot resume: %w", err)
	case st.Complete:
		return nil
	}
	if err := verifyAnswers(o.Answers, st); err != nil {
		return fmt.Errorf("cannot resume: %w", err)
	}
	if o.Logits == "" {
		return nil
	}
	if err := logits.Verify(o.Logits, st.LogitsParts, st.LogitsDigest, st.Run); err != nil {
		return fmt.Errorf("--logits: %w", err)
	}
	return nil
}
