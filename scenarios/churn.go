package scenarios

import "github.com/certbench/certbench/certgen"

// ChurnSteps is the number of renew-1 configurations a HandshakeUnderChurn
// workload walks through.
const ChurnSteps = 64

// ChurnHellos is the number of distinct ClientHellos a HandshakeUnderChurn
// workload cycles over (the lookup-1000 mix).
const ChurnHellos = 1000

// buildChurn makes a HandshakeUnderChurn workload: the renew-1
// configurations (Configs[k] has certificates 0..k-1 renewed once), which
// the refresher walks forward and back (ChurnStep) so that every refresh
// changes one certificate, the lookup mix, and ops bounding the lookups.
func (s Scenario) buildChurn(pool *certgen.Pool, w *Workload, ops int) error {
	renew := s
	renew.Kind = Renew
	steps := min(ChurnSteps, len(pool.Certs))
	rw, err := renew.Build(max(steps, 1))
	if err != nil {
		return err
	}
	w.Configs = rw.Configs
	if w.Hellos, w.Store, err = s.hellos(pool, ChurnHellos); err != nil {
		return err
	}
	w.Certs = rw.Certs
	w.Scenario.Ops = ops
	return nil
}

// ChurnStep returns the index into Configs of the k-th refresh (k >= 1) of
// a HandshakeUnderChurn workload with n+1 configurations: the walk 1, 2,
// ..., n, n-1, ..., 0, 1, ... that changes one certificate per step.
func ChurnStep(k, n int) int {
	if n <= 0 {
		return 0
	}
	p := k % (2 * n)
	if p <= n {
		return p
	}
	return 2*n - p
}
