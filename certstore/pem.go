package certstore

import "encoding/pem"

// AppendCertificateDERs appends to dst the DER bytes of every CERTIFICATE
// block in pemBytes, in order (a leaf, then its chain, as a KeyPair's
// CertPEM holds them), skipping blocks of other types and text between
// blocks, and returns the extended slice. The DER slices alias pemBytes'
// decoded blocks, not pemBytes itself.
func AppendCertificateDERs(dst [][]byte, pemBytes []byte) [][]byte {
	for rest := pemBytes; ; {
		var b *pem.Block
		if b, rest = pem.Decode(rest); b == nil {
			return dst
		}
		if b.Type == "CERTIFICATE" {
			dst = append(dst, b.Bytes)
		}
	}
}
