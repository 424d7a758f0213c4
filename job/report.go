package job

import (
	"go.uber.org/zap"

	"qa-shard/fleet"
	"qa-shard/internal/logs"
	"qa-shard/scheduler"
)

// report says what the run did into o: one "summary" object when the
// log format is JSON, a table for a person on a console.
func report(log *zap.Logger, logFormat string, o OutputOptions, s scheduler.Summary, fl *fleet.Fleet) {
	shapes, gpus := fl.Describe()
	if logs.Resolve(logFormat) == "json" {
		log.Info("summary", append(s.Fields(), zap.String("output", o.Output), zap.String("logits", o.Logits),
			zap.Strings("batch_shape", shapes), zap.Strings("gpus", gpus))...)
		return
	}
	files := []string{"answers file   " + o.Output}
	if o.Logits != "" {
		files = append(files, "logits file    "+o.Logits)
	}
	for _, sh := range shapes {
		files = append(files, "batch shape    "+sh)
	}
	s.WriteTable(logs.Console(), append(files, gpus...)...)
}
