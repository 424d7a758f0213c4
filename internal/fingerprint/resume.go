package fingerprint

import (
	"fmt"
	"strings"
	"time"

	"qa-shard/internal/errkind"
	"qa-shard/internal/readstate"
)

// What a resume compares: the decisions of --resume (and of `status
// --verify`) as pure functions over plain values. The packages that own
// the files do the reading (input its files and their hashes, output its
// answers and parts, the journal its own state) and pass what they found,
// with what the journal recorded, to these functions, which decide
// whether the two agree and word the refusal. Where the caller's sentinel
// names the refusal (the journal's ErrCorrupt, ErrOutputShort), a function
// returns the words that follow it ("" when the two agree); what the
// input's files refuse is ErrChanged.

// ErrChanged: --resume found an input that changed since the journal was
// written (its place, size, modification time or the content it
// verified). Package input reports it as its own ErrChanged.
var ErrChanged = errkind.NewUser("the input changed since the journal was written")

// Found is an input file as a resume finds it now: what a journal would
// record of it (its place in the run's order, name, size and modification
// time) and the path it is read from, which a refusal names.
type Found struct {
	readstate.File
	Path string
}

// CheckRead checks the files a journal says were read (read) against the
// run's files now (now, in the run's order): each is still the file of
// that name at that place, and the first whole of them, which were read
// to their end, have the size and modification time they had then.
func CheckRead(now []Found, read []readstate.File, whole int) error {
	for i, fr := range read {
		if fr.File < 0 || fr.File >= len(now) || now[fr.File].Name != fr.Name {
			return fmt.Errorf("%w: the journal read %s as input file %d, which it no longer is: the list of input files changed", ErrChanged, fr.Name, fr.File+1)
		}
		f := now[fr.File]
		if i < whole && (f.Size != fr.Size || f.ModTime != fr.ModTime) {
			return fmt.Errorf("%w: %s had %d bytes, modified %s, and now has %d bytes, modified %s",
				ErrChanged, f.Path, fr.Size, stamp(fr.ModTime), f.Size, stamp(f.ModTime))
		}
	}
	return nil
}

// stamp is a modification time (nanoseconds since the epoch) as a
// refusal names it.
func stamp(ns int64) string { return time.Unix(0, ns).UTC().Format(time.RFC3339Nano) }

// CheckResumedIn checks that the file the journal resumes in (cur, the
// last file it read) is the one its position names (next) and part of
// this process's share of the input (inShare).
func CheckResumedIn(cur readstate.File, next readstate.Position, inShare bool) error {
	if cur.File != next.File || !inShare {
		return fmt.Errorf("%w: the journal resumes in %s, which is not part of this process's share of the input", ErrChanged, cur.Name)
	}
	return nil
}

// CheckReread compares the SHA-256 of what a resume read again of the
// file it resumes in (got, from cur.From up to the resume point next) with
// the journal's (cur.SHA256). path is the file's ("-": standard input,
// which must be the same stream replayed).
func CheckReread(path string, cur readstate.File, next int64, got string) error {
	switch {
	case got == cur.SHA256:
		return nil
	case path == "-":
		return fmt.Errorf("%w: standard input: its first %d bytes are not the stream the journal recorded (sha256 %.12s, now %.12s): a resume reading standard input needs the same stream replayed from its start",
			ErrChanged, next, cur.SHA256, got)
	}
	return fmt.Errorf("%w: %s: what was read of it before the resume point (from %d to %d) differs from what the journal recorded (sha256 %.12s, now %.12s): the file was changed in place",
		ErrChanged, path, cur.From, next, cur.SHA256, got)
}

// OutputLength compares the length of a resumed output file (size) with
// the journal's (journaled): the words of the refusal when it is shorter
// (the journal's ErrOutputShort), "" otherwise (a longer tail the journal
// cuts off).
func OutputLength(path string, size, journaled int64) string {
	if size < journaled {
		return fmt.Sprintf("%s has %d bytes and the journal says %d: the output is shorter than the journal says; it was modified or truncated; start over with --overwrite", path, size, journaled)
	}
	return ""
}

// SavedLength compares the length of a run's answers file (size) with
// the journal's (journaled, of done documents), for a run that has
// finished (complete: exactly that length) or not (at least): the words
// of the refusal (the journal's ErrCorrupt), "" when they agree.
func SavedLength(path string, size, journaled, done int64, complete bool) string {
	switch {
	case size < journaled:
		return fmt.Sprintf("%s has %d bytes, and its journal vouches for %d (%d documents): it was truncated after the run", path, size, journaled, done)
	case complete && size > journaled:
		return fmt.Sprintf("%s has %d bytes, and its journal says the complete run wrote %d: it was written to after the run", path, size, journaled)
	}
	return ""
}

// AnswersText compares the text of an answers file's first journaled
// bytes with the journal: it ends a record (endsRecord: its last byte is
// a newline) and holds the journal's count of records (found, recorded).
// It says what differs ("" when nothing does).
func AnswersText(journaled int64, endsRecord bool, found, recorded int64) string {
	switch {
	case journaled > 0 && !endsRecord:
		return fmt.Sprintf("its text before the resume point (byte %d) ends inside a record", journaled)
	case found != recorded:
		return fmt.Sprintf("its first %d bytes hold %d records", journaled, found)
	}
	return ""
}

// AnswersDigest compares the SHA-256 of an answers file's first journaled
// bytes (found) with the journal's digest (recorded, covering covered
// bytes; ok false when the journal's digest cannot be read). It says what
// differs ("" when nothing does).
func AnswersDigest(journaled int64, ok bool, covered int64, found, recorded []byte) string {
	switch {
	case !ok || covered != journaled:
		return fmt.Sprintf("the journal's digest does not cover its %d bytes", journaled)
	case string(found) != string(recorded):
		return fmt.Sprintf("its first %d bytes are not the ones the run wrote (their SHA-256 is not the journal's)", journaled)
	}
	return ""
}

// PartRun compares the run a sealed part names (found) with the
// journal's (recorded); either may be unknown (""), and is then not
// compared. It says what differs ("" when nothing does).
func PartRun(path, found, recorded string) string {
	if found != "" && recorded != "" && found != recorded {
		return fmt.Sprintf("%s was written by another run (run %s, this one is %s): a part of another output put in its place", path, found, recorded)
	}
	return ""
}

// ExtraPart compares the index of a part found in a folder (name, at
// index) with the journal's count of the parts a complete run wrote
// there (parts, of what: "answers" or "logits"): the words of the
// refusal (the journal's ErrCorrupt) when it is beyond them, "" otherwise.
func ExtraPart(dir, name string, index, parts int, what string) string {
	if index >= parts {
		return fmt.Sprintf("%s holds %s, and its journal says the complete run wrote %d %s parts: it was added after the run", dir, name, parts, what)
	}
	return ""
}

// LogitsParts compares a logits folder's parts with the journal's
// record of them (keep parts, their digest recorded): the parts of them
// missing, those written by another run (foreign, beyond keep
// included), and the digest of the parts kept (digest, compared only
// when none is missing or foreign). It says what differs, naming the
// folder ("" when nothing does; the logits' ErrParts is the refusal).
func LogitsParts(dir string, keep int, missing, foreign []string, digest, recorded string) string {
	var problems []string
	if len(missing) > 0 {
		problems = append(problems, "missing "+strings.Join(missing, ", "))
	}
	if len(foreign) > 0 {
		problems = append(problems, "written by another run: "+strings.Join(foreign, ", "))
	}
	if len(problems) == 0 && digest != recorded {
		problems = append(problems, fmt.Sprintf("its %d parts are this run's but not the ones the journal recorded (changed, or copied from another point of the run)", keep))
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("%s (the journal records %d parts): %s", dir, keep, strings.Join(problems, "; "))
}

// AnswerParts compares the journal's parts of a Parquet answers folder
// (parts of them, their rows, their digest) with the journal's count of
// records and its digest (recordedDigest, "" when the journal records
// none). It says what differs ("" when nothing does).
func AnswerParts(parts int, rows, records int64, digest, recordedDigest string) string {
	switch {
	case rows != records:
		return fmt.Sprintf("its %d parts hold %d records", parts, rows)
	case recordedDigest != "" && digest != recordedDigest:
		return fmt.Sprintf("its %d parts are not the ones sealed (their sizes or footers differ from those the journal records)", parts)
	}
	return ""
}
