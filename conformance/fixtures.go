package conformance

import (
	"bytes"
	"cmp"
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/certbench/certbench/certgen"
	"github.com/certbench/certbench/certstore"
)

// seed makes the suite's certificates; any fixed value does.
const seed = 0xce27_b0c4

// cert is one fixture certificate and what the suite knows about it.
type cert struct {
	label string
	pair  certstore.KeyPair
	leaf  []byte   // DER of the leaf
	chain [][]byte // DER of every certificate in CertPEM
	names []string // certstore.Names of the leaf
}

func newCert(label string, pair certstore.KeyPair) (*cert, error) {
	c := &cert{label: label, pair: pair}
	c.chain = certstore.AppendCertificateDERs(nil, pair.CertPEM)
	if len(c.chain) == 0 {
		return nil, fmt.Errorf("conformance: fixture %s has no certificate", label)
	}
	c.leaf = c.chain[0]
	x, err := x509.ParseCertificate(c.leaf)
	if err != nil {
		return nil, fmt.Errorf("conformance: fixture %s: %w", label, err)
	}
	c.names = certstore.Names(x)
	return c, nil
}

// entry makes a configuration entry for the certificate in stores.
func (c *cert) entry(stores ...string) certstore.Certificate {
	return certstore.Certificate{KeyPair: c.pair, Stores: stores}
}

// pairPtr returns a copy of the key pair, for StoreConfig.DefaultCertificate.
func (c *cert) pairPtr() *certstore.KeyPair {
	p := c.pair
	return &p
}

// fixtures is everything the suite needs, made once per test binary.
type fixtures struct {
	certs  map[string]*cert  // by label
	byLeaf map[string]string // leaf DER -> label
	pems   map[string]*cert  // CertPEM -> certificate

	pemNoise []byte // a small PEM CERTIFICATE block of noise
}

var loadFixtures = sync.OnceValues(makeFixtures)

// blobs are the large garbage inputs, made on first use.
type blobs struct {
	raw []byte // 5 MB of noise
	pem []byte // a 5 MB PEM CERTIFICATE block of noise
}

var loadBlobs = sync.OnceValue(func() *blobs {
	rng := rand.New(rand.NewPCG(seed, 5))
	block := make([]byte, 64<<10)
	for i := 0; i+8 <= len(block); i += 8 {
		binary.LittleEndian.PutUint64(block[i:], rng.Uint64())
	}
	raw := bytes.Repeat(block, (5<<20)/len(block))
	return &blobs{raw: raw, pem: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: raw[:len(raw)*3/4]})}
})

// Labels of fixture certificates that the checks refer to.
const (
	// Lookup rules.
	lWild    = "wild"    // *.example.com
	lWWW     = "www"     // CN and SAN www.example.com, api.example.com
	lMixed   = "mixed"   // MiXeD.Example.NET
	lCNOnly  = "cn-only" // CN cn-only.example.org, no SANs
	lIP      = "ip"      // 192.0.2.10, 2001:db8::10
	lDup1    = "dup1"    // dup.example.org, *.tie.example.org
	lDup2    = "dup2"    // dup.example.org, *.tie.example.org, second.example.org
	lDeep    = "deep"    // *.deep.example.net
	lDefault = "default" // configured default of the default store

	// Stores.
	lShared       = "shared"
	lShopOnly     = "shop-only"
	lHome         = "home"
	lExplicit     = "explicit"
	lSameDefault  = "same-in-default"
	lSameShop     = "same-in-shop"
	lDefaultShop  = "default-shop"
	lDefaultEmpty = "default-emptydef"
	lB1           = "b1"
	lDefaultB     = "default-b"

	// Reject and Accept.
	lGood1        = "good1"
	lGood2        = "good2"
	lGood3        = "good3"
	lAfter        = "after"
	lDefaultAlt   = "default-alt"
	lDefaultShop2 = "default-shop-alt"
	lMismatch     = "mismatch"
	lNoNames      = "no-names"
	lExpired      = "expired"
	lNotYet       = "not-yet-valid"
	lRSA          = "rsa"
	lPKCS1        = "rsa-pkcs1"
	lEd25519      = "ed25519"
	lSEC1         = "p256-sec1"
	lLeafOnly     = "leaf-only"
)

func makeFixtures() (*fixtures, error) {
	m := &fixtureMaker{
		fx:     &fixtures{certs: map[string]*cert{}, byLeaf: map[string]string{}},
		is:     certgen.NewIssuer(seed),
		serial: 1000,
	}
	m.lookupFixtures()
	m.storeFixtures()
	m.rejectFixtures()
	fx := m.fx
	noise := sha256.Sum256([]byte("certbench conformance noise"))
	fx.pemNoise = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: bytes.Repeat(noise[:], 3)})

	if m.err != nil {
		return nil, m.err
	}
	fx.pems = map[string]*cert{}
	for _, c := range fx.certs {
		fx.pems[string(c.pair.CertPEM)] = c
	}
	return fx, nil
}

// fixtureMaker issues the fixtures, keeping the first error.
type fixtureMaker struct {
	fx     *fixtures
	is     *certgen.Issuer
	serial uint64
	err    error
}

// add records pair as fixture label (or err, the first of which is kept).
func (m *fixtureMaker) add(label string, pair certstore.KeyPair, err error) *cert {
	fx := m.fx
	var c *cert
	if err == nil {
		c, err = newCert(label, pair)
	}
	if err == nil {
		if _, dup := fx.certs[label]; dup {
			err = fmt.Errorf("conformance: duplicate fixture label %s", label)
		} else if other, dup := fx.byLeaf[string(c.leaf)]; dup {
			err = fmt.Errorf("conformance: fixtures %s and %s have the same leaf", label, other)
		}
	}
	if err != nil {
		m.err = cmp.Or(m.err, fmt.Errorf("conformance: fixture %s: %w", label, err))
		return nil
	}
	fx.certs[label] = c
	fx.byLeaf[string(c.leaf)] = label
	return c
}

// issue issues l, with the next serial, as fixture label.
func (m *fixtureMaker) issue(label string, l certgen.Leaf) *cert {
	m.serial++
	l.Serial = m.serial
	pair, err := m.is.Issue(l)
	return m.add(label, pair, err)
}

// dns issues a leaf for names as fixture label.
func (m *fixtureMaker) dns(label string, names ...string) *cert {
	return m.issue(label, certgen.Leaf{DNSNames: names})
}

// lookupFixtures are the certificates of the lookup rules.
func (m *fixtureMaker) lookupFixtures() {
	m.dns(lWild, "*.example.com")
	m.issue(lWWW, certgen.Leaf{CommonName: "www.example.com", DNSNames: []string{"www.example.com", "api.example.com"}})
	m.dns(lMixed, "MiXeD.Example.NET")
	m.issue(lCNOnly, certgen.Leaf{CommonName: "cn-only.example.org"})
	m.issue(lIP, certgen.Leaf{IPAddresses: []net.IP{net.ParseIP("192.0.2.10"), net.ParseIP("2001:db8::10")}})
	m.dns(lDup1, "dup.example.org", "*.tie.example.org")
	m.dns(lDup2, "dup.example.org", "*.tie.example.org", "second.example.org")
	m.dns(lDeep, "*.deep.example.net")
	m.dns(lDefault, "default.certbench.invalid")
	for _, u := range unicodeLeaves {
		m.issue(u.label, u.leaf)
	}
}

// storeFixtures are the certificates of the several-stores rules.
func (m *fixtureMaker) storeFixtures() {
	m.dns(lShared, "shared.example.com")
	m.dns(lShopOnly, "shop.example.com")
	m.dns(lHome, "home.example.com")
	m.dns(lExplicit, "explicit.example.com")
	m.dns(lSameDefault, "same.example.com")
	m.dns(lSameShop, "same.example.com")
	m.dns(lDefaultShop, "default-shop.certbench.invalid")
	m.dns(lDefaultEmpty, "default-emptydef.certbench.invalid")
	m.dns(lB1, "b1.example.com")
	m.dns(lDefaultB, "default-b.certbench.invalid")
}

// rejectFixtures are the certificates of the Reject and Accept rules.
func (m *fixtureMaker) rejectFixtures() {
	fx := m.fx
	g1 := m.dns(lGood1, "good1.example.com")
	m.dns(lGood2, "good2.example.com", "*.good.example.com")
	m.dns(lGood3, "good3.example.com")
	m.dns(lAfter, "after.example.com")
	m.dns(lDefaultAlt, "default-alt.certbench.invalid")
	m.dns(lDefaultShop2, "default-shop-alt.certbench.invalid")
	if g1 != nil {
		other, err := parseKey(g1.pair.KeyPEM)
		if err == nil {
			m.issue(lMismatch, certgen.Leaf{DNSNames: []string{"mismatch.example.com"}, KeyFor: other})
		} else {
			m.add(lMismatch, certstore.KeyPair{}, err)
		}
	}
	m.issue(lNoNames, certgen.Leaf{})
	m.issue(lExpired, certgen.Leaf{DNSNames: []string{"expired.example.com"},
		NotBefore: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)})
	m.issue(lNotYet, certgen.Leaf{DNSNames: []string{"not-yet-valid.example.com"},
		NotBefore: time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), NotAfter: time.Date(2101, 1, 1, 0, 0, 0, 0, time.UTC)})
	edSeed := sha256.Sum256([]byte("certbench conformance ed25519"))
	m.issue(lEd25519, certgen.Leaf{DNSNames: []string{"ed25519.example.com"}, Key: ed25519.NewKeyFromSeed(edSeed[:])})
	if c := m.dns(lSEC1, "sec1.example.com"); c != nil {
		pair, err := reencodeKey(c.pair)
		delete(fx.certs, lSEC1)
		delete(fx.byLeaf, string(c.leaf))
		m.add(lSEC1, pair, err)
	}
	if c := m.issue(lLeafOnly, certgen.Leaf{DNSNames: []string{"leaf-only.example.com"}}); c != nil {
		b, _ := pem.Decode(c.pair.CertPEM)
		c.pair.CertPEM = pem.EncodeToMemory(b)
		c.chain = c.chain[:1]
	}
	rsaPool, err := certgen.NewPool(certgen.PoolSpec{Seed: seed, Count: 2, Key: certgen.RSA2048,
		MaxSANs: 1, WildcardEvery: -1, Domain: "rsa.example.com"})
	if err != nil {
		m.add(lRSA, certstore.KeyPair{}, err)
	} else {
		m.add(lRSA, rsaPool.Certs[0].Pair, nil)
		pair, err := reencodeKey(rsaPool.Certs[1].Pair)
		m.add(lPKCS1, pair, err)
	}
}

// parseKey parses a PKCS#8 PEM key.
func parseKey(keyPEM []byte) (crypto.Signer, error) {
	b, _ := pem.Decode(keyPEM)
	if b == nil {
		return nil, errors.New("no PEM key")
	}
	k, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, err
	}
	s, ok := k.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("key %T is not a signer", k)
	}
	return s, nil
}

// reencodeKey rewrites a PKCS#8 key in its type's traditional encoding:
// PKCS#1 for RSA, SEC 1 for ECDSA.
func reencodeKey(pair certstore.KeyPair) (certstore.KeyPair, error) {
	k, err := parseKey(pair.KeyPEM)
	if err != nil {
		return pair, err
	}
	switch k := k.(type) {
	case *rsa.PrivateKey:
		pair.KeyPEM = pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(k)})
	case *ecdsa.PrivateKey:
		der, err := x509.MarshalECPrivateKey(k)
		if err != nil {
			return pair, err
		}
		pair.KeyPEM = pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: der})
	default:
		return pair, fmt.Errorf("no traditional encoding for %T", k)
	}
	return pair, nil
}

// describeLeaf names a leaf for messages.
func (fx *fixtures) describeLeaf(leaf []byte) string {
	if leaf == nil {
		return "no certificate"
	}
	if l, ok := fx.byLeaf[string(leaf)]; ok {
		return l
	}
	x, err := x509.ParseCertificate(leaf)
	if err != nil {
		return fmt.Sprintf("unparsable certificate (%v)", err)
	}
	return fmt.Sprintf("unknown certificate (CN=%q, names %s)", x.Subject.CommonName, strings.Join(certstore.Names(x), ","))
}
