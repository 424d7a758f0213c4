package scheduler

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// jitterSeed seeds the fake replicas' jitter (fakeReplica.jitter): a new
// one each run, so runs scramble differently, printed so that a failure
// can be rerun with the same delays.
var jitterSeed = flag.Uint64("jitter-seed", 0, "seed of the fake replicas' jitter (0: a random one)")

func TestMain(m *testing.M) {
	flag.Parse()
	if *jitterSeed == 0 {
		*jitterSeed = rand.Uint64()
	}
	fmt.Printf("fake replicas' jitter seed %d (go test ./scheduler -args -jitter-seed %d repeats it)\n", *jitterSeed, *jitterSeed)
	os.Exit(m.Run())
}
