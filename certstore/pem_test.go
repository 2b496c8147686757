package certstore_test

import (
	"bytes"
	"encoding/pem"
	"testing"

	"github.com/certbench/certbench/certstore"
)

func TestAppendCertificateDERs(t *testing.T) {
	var in bytes.Buffer
	in.WriteString("text before\r\n")
	pem.Encode(&in, &pem.Block{Type: "CERTIFICATE", Bytes: []byte{1}})
	pem.Encode(&in, &pem.Block{Type: "PRIVATE KEY", Bytes: []byte{9}})
	pem.Encode(&in, &pem.Block{Type: "CERTIFICATE", Bytes: []byte{2, 3}})
	in.WriteString("text after\n")
	got := certstore.AppendCertificateDERs([][]byte{{0}}, in.Bytes())
	if len(got) != 3 || !bytes.Equal(got[0], []byte{0}) || !bytes.Equal(got[1], []byte{1}) || !bytes.Equal(got[2], []byte{2, 3}) {
		t.Errorf("got %v, want [[0] [1] [2 3]]", got)
	}
	if got := certstore.AppendCertificateDERs(nil, []byte("no PEM here")); got != nil {
		t.Errorf("no blocks: got %v", got)
	}
}
