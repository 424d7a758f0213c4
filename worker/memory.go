package worker

// DefaultSessionsPerGPU is how many sessions a GPU gets unless told
// otherwise: two, so one batch is prepared and copied while the other
// computes.
const DefaultSessionsPerGPU = 2

// sessionsPerGPU is the number of sessions per GPU for a requested count
// (--replicas-per-device); zero or less takes DefaultSessionsPerGPU.
func sessionsPerGPU(requested int) int {
	if requested <= 0 {
		return DefaultSessionsPerGPU
	}
	return requested
}

// SessionMemLimit is the CUDA arena limit of each of a GPU's sessions when
// they share fraction of its total bytes (--gpu-mem-fraction): the
// fraction is divided among the sessions the GPU will really get, the
// default applied first, so the limits add up to the fraction and never
// more. Zero (no limit) when fraction or total is zero.
func SessionMemLimit(fraction float64, total uint64, requestedSessions int) uint64 {
	if fraction <= 0 || total == 0 {
		return 0
	}
	return uint64(fraction * float64(total) / float64(sessionsPerGPU(requestedSessions)))
}
