package certgen

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A directory source: every regular file under the root is parsed by
// opts.Workers workers, then certificates and keys are paired across files
// by public key. Links to files inside the root are read once per target
// (Kubernetes' ..data layout); links outside it or to directories, special
// files and files over the size cap are refused.

// dirFile is one parsed file.
type dirFile struct {
	rel   string
	items []pemItem
}

func loadDir(root string, opts SourceOptions) (*Source, error) {
	rootName := filepath.Base(root)
	rootReal, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, &SourceError{File: rootName, Err: plainFSError(err)}
	}
	if rootReal, err = filepath.Abs(rootReal); err != nil {
		return nil, &SourceError{File: rootName, Err: err}
	}
	type job struct{ path, rel string }
	var jobs []job
	walkSkips, err := walkSource(rootReal, func(path, rel string) { jobs = append(jobs, job{path, rel}) })
	if err != nil {
		return nil, &SourceError{File: rootName, Err: err}
	}
	cc := newCertCache()
	parsed := make([]dirFile, len(jobs))
	skipped := make([][]Skip, len(jobs))
	parallel(len(jobs), opts.Workers, func(i int) {
		j := jobs[i]
		data, err := readCapped(j.path, opts.MaxFileSize, "MaxFileSize")
		if err != nil {
			skipped[i] = []Skip{{File: j.rel, Reason: err.Error()}}
			return
		}
		parsed[i].rel = j.rel
		parsed[i].items, skipped[i] = parseBundle(data, j.rel, cc)
	})
	certs, skips := pairFiles(slices.DeleteFunc(parsed, func(f dirFile) bool { return len(f.items) == 0 }))
	return &Source{Certs: certs, Skipped: slices.Concat(slices.Concat(skipped...), walkSkips, skips)}, nil
}

// walkSource walks root (a real, absolute path) in lexical order and calls
// send for every file to read, with its path and its name relative to
// root. It returns the entries it refused or left out.
func walkSource(root string, send func(path, rel string)) ([]Skip, error) {
	var skips []Skip
	seen := make(map[string]string) // real path relative to root -> first name
	skip := func(rel string, ignored bool, err error) {
		skips = append(skips, Skip{File: rel, Reason: err.Error(), Ignored: ignored})
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		rel := relSlash(root, path)
		if err != nil {
			if path == root {
				return plainFSError(err)
			}
			skip(rel, false, errors.New("cannot read: "+plainFSError(err).Error()))
			return nil
		}
		typ := d.Type()
		target, real := path, rel
		switch {
		case typ.IsDir():
			return nil
		case typ.IsRegular():
		case typ&fs.ModeSymlink != 0:
			resolved, err := filepath.EvalSymlinks(path)
			if err != nil {
				skip(rel, false, errors.New("refused: broken symbolic link"))
				return nil
			}
			r, err := filepath.Rel(root, resolved)
			if err != nil || !filepath.IsLocal(r) {
				skip(rel, false, errors.New("refused: symbolic link leads outside the source directory"))
				return nil
			}
			fi, err := os.Stat(resolved)
			if err != nil {
				skip(rel, false, errors.New("cannot read: "+plainFSError(err).Error()))
				return nil
			}
			if fi.IsDir() {
				skip(rel, true, errors.New("symbolic link to a directory, not followed"))
				return nil
			}
			if !fi.Mode().IsRegular() {
				skip(rel, false, notRegular(fi.Mode()))
				return nil
			}
			target, real = resolved, filepath.ToSlash(r)
		default:
			skip(rel, false, notRegular(typ))
			return nil
		}
		if first, ok := seen[real]; ok {
			skip(rel, true, errors.New("same file as "+first))
			return nil
		}
		seen[real] = rel
		send(target, rel)
		return nil
	})
	return skips, err
}

func relSlash(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return filepath.Base(path)
	}
	return filepath.ToSlash(r)
}

// leafOcc is one place a leaf (a certificate whose key is in the source)
// appears, with the certificates that follow it in its file.
type leafOcc struct {
	file  string
	line  int
	cert  *certInfo
	chain []*certInfo
}

// maxChain bounds the intermediates attached to a leaf from other files.
const maxChain = 8

// pairFiles pairs the certificates and keys of a directory's files.
func pairFiles(files []dirFile) ([]SourceCert, []Skip) {
	slices.SortFunc(files, func(a, b dirFile) int { return strings.Compare(a.rel, b.rel) })
	p := &dirPairing{
		keys:      make(map[[32]byte]keyOcc),
		bySubject: make(map[string][]*certInfo),
		issuers:   make(map[string]bool),
	}
	p.findKeys(files)
	p.findCerts(files)
	out := p.leaves()
	p.skipLoose()
	for _, k := range p.keyOrder {
		if !p.usedKeys[k.key.spki] {
			p.skips = append(p.skips, Skip{File: k.file, Line: k.line, Reason: "private key matches no certificate"})
		}
	}
	return out, p.skips
}

// keyOcc is the first place a private key appears.
type keyOcc struct {
	file string
	line int
	key  *keyInfo
}

// looseOcc is a certificate that is neither a leaf nor after one in its
// file.
type looseOcc struct {
	file string
	line int
	cert *certInfo
}

// dirPairing is the state of pairFiles.
type dirPairing struct {
	keys      map[[32]byte]keyOcc // by SPKI hash
	keyOrder  []keyOcc
	occs      []*leafOcc
	loose     []looseOcc
	bySubject map[string][]*certInfo // non-self-signed certificates
	issuers   map[string]bool        // subjects that issued a certificate of the source
	used      map[[32]byte]bool      // certificates served, by hash
	usedKeys  map[[32]byte]bool      // keys served, by SPKI hash
	skips     []Skip
}

// findKeys records the first occurrence of each private key.
func (p *dirPairing) findKeys(files []dirFile) {
	for _, f := range files {
		for _, it := range f.items {
			if it.key != nil {
				if _, ok := p.keys[it.key.spki]; !ok {
					p.keys[it.key.spki] = keyOcc{f.rel, it.line, it.key}
					p.keyOrder = append(p.keyOrder, p.keys[it.key.spki])
				}
			}
		}
	}
}

// findCerts sorts the certificates into leaves (their key is in the
// source) with the certificates after them in their file, and loose ones.
func (p *dirPairing) findCerts(files []dirFile) {
	listed := make(map[[32]byte]bool)
	for _, f := range files {
		var cur *leafOcc
		for _, it := range f.items {
			ci := it.cert
			if ci == nil {
				continue
			}
			if !listed[ci.hash] {
				listed[ci.hash] = true
				if !ci.selfSigned {
					p.bySubject[ci.subject] = append(p.bySubject[ci.subject], ci)
					p.issuers[ci.issuer] = true
				}
			}
			switch _, paired := p.keys[ci.spki]; {
			case paired:
				cur = &leafOcc{file: f.rel, line: it.line, cert: ci}
				p.occs = append(p.occs, cur)
			case cur != nil:
				cur.chain = append(cur.chain, ci)
			default:
				p.loose = append(p.loose, looseOcc{f.rel, it.line, ci})
			}
		}
	}
}

// leaves returns one entry per distinct leaf: the occurrence with the
// longest chain in its file, the first of those; the others are skipped.
func (p *dirPairing) leaves() []SourceCert {
	best := make(map[[32]byte]*leafOcc)
	for _, o := range p.occs {
		if b, ok := best[o.cert.hash]; !ok || len(o.chain) > len(b.chain) {
			best[o.cert.hash] = o
		}
	}
	p.used = make(map[[32]byte]bool)
	p.usedKeys = make(map[[32]byte]bool)
	var out []SourceCert
	for _, o := range p.occs {
		b := best[o.cert.hash]
		if b != o {
			p.skips = append(p.skips, Skip{File: o.file, Line: o.line, Reason: "same certificate as " + posString(b.file, b.line), Ignored: true})
			continue
		}
		if o.cert.isCA && p.issuers[o.cert.subject] {
			// A CA certificate that issued certificates here is an
			// issuer, its key beside it or not: not a server certificate.
			p.usedKeys[o.cert.spki] = true
			p.skips = append(p.skips, Skip{File: o.file, Line: o.line, Reason: "CA certificate that issued certificates here (its key is here too): an issuer, not a server certificate", Ignored: true})
			continue
		}
		chain := extendChain(o.cert, o.chain, p.bySubject)
		p.used[o.cert.hash] = true
		for _, c := range chain {
			p.used[c.hash] = true
		}
		k := p.keys[o.cert.spki]
		p.usedKeys[o.cert.spki] = true
		facts := o.cert.facts
		facts.ChainLen = 1 + len(chain)
		out = append(out, SourceCert{
			Certificate: certstoreCert(chainPEM(o.cert, chain), encodePEM(k.key.pemType, k.key.der), nil),
			File:        o.file,
			Line:        o.line,
			Facts:       facts,
		})
	}
	return out
}

// skipLoose says why each loose certificate in no leaf's chain is not
// served.
func (p *dirPairing) skipLoose() {
	for _, l := range p.loose {
		switch {
		case p.used[l.cert.hash]:
		case l.cert.isCA && (l.cert.facts.SANs == 0 || p.issuers[l.cert.subject]):
			p.skips = append(p.skips, Skip{File: l.file, Line: l.line, Reason: "CA certificate is in no leaf's chain", Ignored: true})
		case l.cert.isCA:
			// A CA certificate with subject alternative names that issued
			// nothing here is a server certificate: openssl req -x509
			// marks the self-signed ones it makes CA:TRUE.
			p.skips = append(p.skips, Skip{File: l.file, Line: l.line, Reason: "certificate has no matching private key (a CA certificate, but with names and issuing nothing here: a self-signed server certificate)"})
		default:
			p.skips = append(p.skips, Skip{File: l.file, Line: l.line, Reason: "certificate has no matching private key"})
		}
	}
}

// extendChain appends to a leaf's chain the issuers found in other files,
// by subject, until a self-signed certificate (roots are not served) or
// no issuer is found. Among several candidates the one whose subject key
// ID is the child's authority key ID wins, else the first in file order.
func extendChain(leaf *certInfo, chain []*certInfo, bySubject map[string][]*certInfo) []*certInfo {
	last := leaf
	if len(chain) > 0 {
		last = chain[len(chain)-1]
	}
	for added := 0; added < maxChain && !last.selfSigned; added++ {
		var pick *certInfo
		for _, c := range bySubject[last.issuer] {
			if c == leaf || slices.Contains(chain, c) {
				continue
			}
			if pick == nil {
				pick = c
			}
			if last.akid != "" && c.skid == last.akid {
				pick = c
				break
			}
		}
		if pick == nil {
			break
		}
		chain = append(chain, pick)
		last = pick
	}
	return chain
}

func posString(file string, line int) string {
	if line > 0 {
		return file + ":" + strconv.Itoa(line)
	}
	return file
}
