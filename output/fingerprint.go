package output

import (
	"fmt"

	"qa-shard/internal/fingerprint"
	"qa-shard/internal/journal"
)

// Fingerprint identifies what the answers depend on (the input files, the
// model folder, the answer-relevant settings and the global questions), so
// --resume refuses to mix outputs of different runs. input is the input's
// own fingerprint (input.Fingerprint); standard input or output has none:
// such a run cannot be resumed.
func Fingerprint(input, model, output string, settings any, questions []string) (journal.Fingerprint, error) {
	if output == "-" || input == "" {
		return journal.Fingerprint{}, nil
	}
	m, err := fingerprint.Model(model)
	if err != nil {
		return journal.Fingerprint{}, fmt.Errorf("fingerprinting --model: %w", err)
	}
	s, err := fingerprint.Value(settings)
	if err != nil {
		return journal.Fingerprint{}, err
	}
	text, err := fingerprint.Text(settings)
	if err != nil {
		return journal.Fingerprint{}, err
	}
	qs, err := fingerprint.Value(questions)
	if err != nil {
		return journal.Fingerprint{}, err
	}
	return journal.Fingerprint{Input: input, Model: m, Settings: s, SettingsText: text, Questions: qs}, nil
}
