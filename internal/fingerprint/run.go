package fingerprint

import (
	"encoding/json"
	"fmt"

	"qa-shard/internal/readstate"
)

// Fingerprint identifies everything that decides the output's bytes, so a
// resumed run appends to an output that an uninterrupted run would also have
// written. Each component is an opaque string compared for equality; the
// functions of package fingerprint produce them.
type Fingerprint struct {
	// Input identifies the run's input files (names and sizes, which
	// decide how ranks split them); what each process read of them is in
	// State.Input.
	Input string `json:"input"`
	// InputText lists the same files as a canonical JSON object, name to
	// size (InputText), not compared itself: when Input
	// differs, a resume names each file added, removed or resized. ""
	// for very many files and in journals written before it existed.
	InputText string `json:"input_text,omitempty"`
	// Model is Model of the model directory.
	Model string `json:"model"`
	// Settings is Value of the answer-relevant settings (the
	// caller chooses which; performance knobs such as batch size must be
	// left out so a resume may change them).
	Settings string `json:"settings"`
	// SettingsText is the same settings as canonical JSON (Text),
	// not compared itself: when Settings differs, a resume names each
	// setting that changed with its old and new value.
	SettingsText string `json:"settings_text,omitempty"`
	// Questions is Value of the global questions list.
	Questions string `json:"questions"`
	// LegacyShard is the block as journals before typed blocks stored it
	// ("rank=R;world=W;from=F;to=T;bytes=N"): read, never written, and
	// kept so those journals' checksums still verify. Reading a journal
	// turns it into Block.
	LegacyShard string `json:"shard,omitempty"`
	// Block is the block of the input this run owns when the corpus is
	// split across ranks (nil for a single process): a resume must own
	// the same block, and merge reads it to check that the ranks cover
	// the corpus exactly once.
	Block *readstate.Block `json:"block,omitempty"`
}

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
	// Model is the model folder (its files are hashed: Model), and
	// Graph its model.onnx when not in Model (built from a checkpoint).
	Model, Graph string
	// Settings are the answer-relevant settings (not performance knobs,
	// which a resume may change); Questions the global questions.
	Settings  any
	Questions []string
}

// Of is r's fingerprint as the journal stores it, so --resume refuses to
// mix the outputs of different runs.
func Of(r Run) (Fingerprint, error) {
	fp := Fingerprint{Input: Stdin, Block: r.Block}
	if !r.Stdin {
		fp.Input, fp.InputText = Input(r.Files, r.Split), inputText(r.Files, r.Split)
	}
	var err error
	if fp.Model, err = Model(r.Model, r.Graph); err != nil {
		return Fingerprint{}, fmt.Errorf("fingerprinting --model: %w", err)
	}
	if fp.Settings, err = value(r.Settings); err != nil {
		return Fingerprint{}, err
	}
	if fp.SettingsText, err = Text(r.Settings); err != nil {
		return Fingerprint{}, err
	}
	if fp.Questions, err = value(r.Questions); err != nil {
		return Fingerprint{}, err
	}
	return fp, nil
}

// inputText lists the files Input covers as a canonical JSON object, for
// Fingerprint.inputText: name to size when ranks split them (the
// sizes are in the fingerprint then), else name to true, so a refused
// resume names each file added, removed (or resized, for ranks). "" for
// more than maxListed files (the journal is rewritten at every
// checkpoint).
func inputText(files []File, split bool) string {
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
