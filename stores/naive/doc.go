// Package naive is a model of Traefik v3's TLS manager (Manager.UpdateConfigs
// and CertificateStore.GetBestCertificate), written from a description of
// it, not from its source. It is the baseline certbench measures other
// stores against, so it keeps Traefik's expensive steps on purpose: every
// refresh copies and re-parses each PEM, dedupes SAN keys by a linear scan
// (O(n²)), builds new stores and go-cache-like lookup caches, and gives a
// store without a default a new self-signed RSA-2048 certificate. A lookup
// miss sorts and splits every SAN key as Traefik's matchDomain does.
//
// Where Traefik differs, the model follows the certstore contract: a bad
// certificate rejects the whole update, exact names beat wildcards with
// ties to the first configured, the SNI is normalized with
// certstore.NormalizeServerName, and the lock is held only for the swap.
// Not modelled: go-cache's janitor goroutines, logging, TLS options, OCSP,
// ACME defaults and sniStrict.
package naive
