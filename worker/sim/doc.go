// Package sim is a simulated replica: it implements the scheduler's
// Replica interface without a model, so tests and `qa-shard bench` can run
// eight or more "devices" on a machine with two cores and no GPU, and can
// inject the faults a real device produces.
//
// A replica sleeps for a time proportional to the padded tokens of each
// batch (Rows*Len / (Rate*Speed)), scaled by a deterministic jitter, and
// returns logits computed from the token ids (StartLogit, EndLogit), so the
// answers of a run can be checked exactly. The jitter of a batch is a hash
// of its ids and the seed, not a random stream: the same batch takes the
// same time on every replica with the same seed and speed, whatever order
// the replicas pull batches in, which keeps the pull and the static-split
// benchmarks comparable.
//
// Faults carry the text ONNX Runtime really produces (as the onnxruntime_go
// binding wraps it), classified by worker.Classify into the same
// *worker.RunError a real session returns, so the classifier is tested on
// the real strings and the scheduler sees the same typed errors.
//
// # Spec grammar
//
// The CLI builds simulated replicas from a --devices value (ParseSpec):
//
//	spec    = "sim" [ ":" item { ":" item } ]
//	item    = count | key "=" value | "recur" | "virtual"
//	count   = N                  N equal replicas, 1..256 (default 1)
//	speeds=F,F,...               one replica per value, relative speed > 0
//	                             (0.25 is four times slower); with a count,
//	                             the lengths must agree
//	rate=R                       padded tokens per second at speed 1
//	                             (default 200000)
//	jitter=J                     each batch takes (1+u) times its time, u in
//	                             [-J, J] from the hash; 0 <= J < 1 (default 0)
//	seed=S                       jitter seed, an unsigned integer (default 1)
//	oom-above=T[@i],...          fail with ONNX Runtime's out-of-memory text
//	                             when Rows*Len > T
//	fatal-after=M[@i],...        after M successful batches every call fails
//	                             with a sticky CUDA error until Reset or
//	                             Rebuild (scheduler.Replica's)
//	hang-after=M[@i],...         the call after M successful batches blocks
//	                             until its context is canceled
//	fail-token=X[@i],...         fail every batch holding token id X (an
//	                             attended position), e.g. a marker word of
//	                             one document
//	recur                        faults come back after Reset or Rebuild
//	                             (see Replica.Reset)
//	overhead=D, row-cost=D       a fixed cost per batch and per row (Go
//	                             durations: 2ms, 150us)
//	cliff=T, cliff-factor=F      above T padded tokens, every token costs F
//	                             times more per doubling of the batch (Curve)
//	drift-after=N                after N successful batches the device
//	drift-speed=F, drift-cliff=T drifts to speed F and cliff T
//	virtual                      no sleeping: simulated time only
//	                             (Replica.DeviceTime), for tests
//
// A fault value without "@i" applies to every replica; "@i" (0-based)
// applies it to replica i only, and several entries may be listed with
// commas: "fatal-after=3@2,10@5". Items are separated by colons because
// lists use commas. Examples:
//
//	sim:8
//	sim:speeds=1,1,1,1,1,1,1,0.25:rate=200000:jitter=0.05
//	sim:4:oom-above=20000:fatal-after=3@2:hang-after=5@1:fail-token=901
//	sim:2:overhead=2ms:cliff=2048:cliff-factor=3:drift-after=40:drift-cliff=512
package sim
