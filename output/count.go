package output

import "qa-shard/internal/record"

// counter counts the records written through it, those of a resumed run's
// earlier processes included (from the journal), so that --max-errors is
// judged on the whole output.
type counter struct {
	record.Sink
	records, errors int64
}

func (c *counter) WriteAnswer(r record.AnswerRecord) error {
	if err := c.Sink.WriteAnswer(r); err != nil {
		return err
	}
	c.records++
	return nil
}

func (c *counter) WriteError(r record.ErrorRecord) error {
	if err := c.Sink.WriteError(r); err != nil {
		return err
	}
	c.records++
	c.errors++
	return nil
}

// Counts are the records in the output (answers and error records) and
// the error records among them, since the run began: before a --resume
// too, as far as the journal vouches for them. Call it from the goroutine
// that writes the records, or once they are all written.
func (o *Outputs) Counts() (records, errors int64) {
	if o.count == nil {
		return 0, 0
	}
	return o.count.records, o.count.errors
}
