package job

import (
	"go.uber.org/zap"

	"qa-shard/output"
	"qa-shard/qamodel"
	"qa-shard/tokenizer/modeldir"
)

// checkOnly is --check: what the run would refuse before its first
// document (the options and inputs are checked already), found without
// ONNX Runtime, devices or the network, and changing nothing: the
// outputs as --resume or --overwrite find them, the model (qamodel.Check)
// and the questions against its tokenizer. A line says what was found.
func checkOnly(o *Options, in *inputs, questions []string, log *zap.Logger) error {
	if err := output.Precheck(output.Options{Answers: o.Output, Logits: o.Logits, Resume: o.Resume, Overwrite: o.Overwrite}); err != nil {
		return err
	}
	m, err := qamodel.Check(o.Model, qamodel.Options{Mecab: modeldir.FlagOptions(o.MecabLib, o.MecabDicdir), Cache: o.ModelCache, Revision: o.Revision}, o.Settings.MaxSeqLen)
	if err != nil {
		return err
	}
	if m.Tok != nil {
		if err := questionsFit(m.Tok, questions, o.Settings); err != nil {
			return err
		}
	}
	log.Info("check passed: the run would start (its devices are checked where it runs: qa-shard devices --check)",
		zap.String("model", o.Model), zap.String("model_kind", m.Kind), zap.String("folder", m.Folder), zap.Strings("tokenizer_files", m.Origin.Files),
		zap.Int("questions", len(questions)), zap.Int("input_files", len(in.plan.Files)), zap.Int64("input_bytes", in.plan.Bytes()),
		zap.String("output", o.Output), zap.Bool("resume", o.Resume))
	return nil
}
