package tune

import "time"

// share is a class's account of the run for Options.Share: the wall time
// of all its batches and the share of the run's work done, whose ratio
// projects the class's run time; the search may take Share of it.
type share struct {
	all   time.Duration // wall time of all the class's batches (device time over replicas at once)
	spent bool          // the search used its share of the run
	done  float64       // share of the run's work done (Tuner.Done)
}

// took adds a batch's wall time.
func (s *share) took(d time.Duration) { s.all += d }

// allowance is the search time the run can afford now at share frac of
// its projected time; < 0 unknown.
func (s *share) allowance(frac float64) time.Duration {
	done := s.done
	if done <= 0 || s.all <= 0 {
		return -1
	}
	return time.Duration(frac * float64(s.all) / min(done, 1))
}

// projected is the class's run time as projected now.
func (s *share) projected() time.Duration { return time.Duration(float64(s.all) / min(s.done, 1)) }
