package fingerprint

import (
	"encoding/json"
	"fmt"

	"qa-shard/internal/journal"
	"qa-shard/internal/readstate"
)

// Run is everything a run's answers depend on, as plain values.
type Run struct {
	// Stdin: the input is standard input, whose text is hashed as it is
	// read (the journal's input state), not here.
	Stdin bool
	// Files are the input files in order; Split says ranks split them,
	// so their sizes (which decide the split) count too.
	Files []File
	Split bool
	// Block is this rank's block of a split input (nil: one process).
	Block *readstate.Block
	// Model is the model folder (its files are hashed: Model).
	Model string
	// Settings are the answer-relevant settings (not performance knobs,
	// which a resume may change); Questions the global questions.
	Settings  any
	Questions []string
}

// Of is r's fingerprint as the journal stores it, so --resume refuses to
// mix the outputs of different runs.
func Of(r Run) (journal.Fingerprint, error) {
	fp := journal.Fingerprint{Input: Stdin, Block: r.Block}
	if !r.Stdin {
		fp.Input, fp.InputText = Input(r.Files, r.Split), InputText(r.Files, r.Split)
	}
	var err error
	if fp.Model, err = Model(r.Model); err != nil {
		return journal.Fingerprint{}, fmt.Errorf("fingerprinting --model: %w", err)
	}
	if fp.Settings, err = Value(r.Settings); err != nil {
		return journal.Fingerprint{}, err
	}
	if fp.SettingsText, err = Text(r.Settings); err != nil {
		return journal.Fingerprint{}, err
	}
	if fp.Questions, err = Value(r.Questions); err != nil {
		return journal.Fingerprint{}, err
	}
	return fp, nil
}

// InputText lists the files Input covers as a canonical JSON object, for
// journal.Fingerprint.InputText: name to size when ranks split them (the
// sizes are in the fingerprint then), else name to true, so a refused
// resume names each file added, removed (or resized, for ranks). "" for
// more than maxListed files (the journal is rewritten at every
// checkpoint).
func InputText(files []File, split bool) string {
	if len(files) > maxListed {
		return ""
	}
	m := make(map[string]any, len(files))
	for _, f := range files {
		m[f.Name] = true
		if split {
			m[f.Name] = f.Size
		}
	}
	b, err := json.Marshal(m) // keys sorted: canonical
	if err != nil {
		return ""
	}
	return string(b)
}

// maxListed bounds the files InputText lists by name: 10,000 names are
// about 500 kB of journal.
const maxListed = 10000
