package output

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"qa-shard/internal/format"
	"qa-shard/internal/partfolder"

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
		return notOurs("--logits", o.Logits)
	case o.Answers == "-":
		return journal.CheckFresh(o.Logits)
	case o.Overwrite:
		return errors.Join(notOursAnswers(o.Answers), notOurs("--logits", o.Logits))
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

// notOurs refuses a folder that holds files qa-shard did not write
// (partfolder.Foreign): --overwrite deletes only its own parts, and its
// parts must not land among another tool's files (a Spark output, a model
// folder). A path that is not a folder, or does not exist, is not refused
// here.
func notOurs(flag, dir string) error {
	if dir == "" || dir == "-" {
		return nil
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return nil
	}
	foreign, err := partfolder.Foreign(dir)
	if err != nil {
		return fmt.Errorf("%w: %s %s: %w", journal.ErrExists, flag, dir, err)
	}
	if len(foreign) == 0 {
		return nil
	}
	shown := foreign
	if len(shown) > 3 {
		shown = append(slices.Clone(shown[:3]), fmt.Sprintf("and %d more", len(foreign)-3))
	}
	return fmt.Errorf("%w: %s %s holds files qa-shard did not write (%s): --overwrite replaces only qa-shard's own parts, and never among other files; choose another %s, or move those files away",
		journal.ErrExists, flag, dir, strings.Join(shown, ", "), flag)
}

// notOursAnswers is notOurs for the answers: a Parquet folder.
func notOursAnswers(path string) error {
	if format.Of(path) != format.Parquet {
		return nil
	}
	return notOurs("--output", path)
}
