// Package scenarios makes the certificate churn that certbench measures:
// the catalogue (scenario files, embedded), each scenario a sequence of
// whole configurations built on certgen's pools, and Families, which make
// scenarios at any pool size for sweeps.
package scenarios
