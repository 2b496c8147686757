package profile

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	pprofile "github.com/google/pprof/profile"
)

// DefaultMaxSize is the largest profile, in bytes after decompression,
// that Load reads: 256 MiB, far above any heap profile certbench writes
// (a few MiB), and small enough that a gzip bomb cannot exhaust memory.
const DefaultMaxSize int64 = 256 << 20

// Load reads a profile file in any format pprof reads (normally gzipped
// protobuf, *.pb.gz), of at most DefaultMaxSize bytes decompressed. Its
// errors name the file, including for a file that is not a profile.
func Load(path string) (*pprofile.Profile, error) {
	return LoadMax(path, DefaultMaxSize)
}

// LoadMax is Load with a limit of maxSize bytes on the profile's size
// after decompression (and on the file's size if it is not compressed).
// A larger profile is a *SizeError; it is never read whole.
func LoadMax(path string, maxSize int64) (*pprofile.Profile, error) {
	if maxSize <= 0 {
		return nil, fmt.Errorf("%s: profile size limit %d: want a positive size", path, maxSize)
	}
	data, err := readLimited(path, maxSize)
	if err != nil {
		return nil, err
	}
	p, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// A SizeError is a profile larger than the limit it was read with.
type SizeError struct {
	File       string // the profile file
	Limit      int64  // the limit, in bytes
	Compressed bool   // the file is gzipped, the limit applies to its content
}

// Error names the file and the limit.
func (e *SizeError) Error() string {
	what := "file is larger than"
	if e.Compressed {
		what = "profile decompresses to more than"
	}
	return fmt.Sprintf("%s: %s the limit of %s (%d bytes)", e.File, what, FormatSize(e.Limit), e.Limit)
}

// gzipMagic starts every gzip stream.
var gzipMagic = []byte{0x1f, 0x8b}

// readLimited returns the content of the file at path, decompressed if it
// is gzipped, failing with a *SizeError beyond maxSize bytes.
func readLimited(path string, maxSize int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("%s: is a directory, want a profile file", path)
	}
	br := bufio.NewReader(f)
	var r io.Reader = br
	compressed := false
	if head, _ := br.Peek(len(gzipMagic)); bytes.Equal(head, gzipMagic) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: not a profile: %w", path, err)
		}
		defer gz.Close()
		r, compressed = gz, true
	} else if fi.Mode().IsRegular() && fi.Size() > maxSize {
		return nil, &SizeError{File: path, Limit: maxSize}
	}
	data, over, err := readAtMost(r, maxSize)
	if err != nil {
		return nil, fmt.Errorf("%s: not a profile: %w", path, err)
	}
	if over {
		return nil, &SizeError{File: path, Limit: maxSize, Compressed: compressed}
	}
	if compressed && bytes.HasPrefix(data, gzipMagic) {
		// pprof would decompress this layer again, with no limit.
		return nil, fmt.Errorf("%s: not a profile: gzip inside gzip", path)
	}
	return data, nil
}

// readAtMost reads r to its end, or until it has read more than max bytes
// (over). It reads into chunks and joins them only at the end, so that
// reading a stream that turns out too long never holds more than about
// max bytes (io.ReadAll's doubling buffer would hold up to twice that).
func readAtMost(r io.Reader, max int64) (data []byte, over bool, err error) {
	var chunks [][]byte
	var total int64
	size := 64 << 10
	for {
		chunk := make([]byte, int(min(int64(size), max+1-total)))
		n, err := io.ReadFull(r, chunk)
		total += int64(n)
		chunks = append(chunks, chunk[:n])
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			break
		}
		if err != nil {
			return nil, false, err
		}
		if total > max {
			return nil, true, nil
		}
		size = min(2*size, 16<<20)
	}
	if len(chunks) == 1 {
		return chunks[0], false, nil
	}
	data = make([]byte, 0, total)
	for _, c := range chunks {
		data = append(data, c...)
	}
	return data, false, nil
}

// FormatSize formats a size in bytes with binary prefixes, as ParseSize
// reads it: "256MiB", "1.5GiB", "900B" (up to four significant digits).
func FormatSize(n int64) string {
	for _, u := range []struct {
		size int64
		name string
	}{{1 << 30, "GiB"}, {1 << 20, "MiB"}, {1 << 10, "KiB"}} {
		if n >= u.size {
			return strconv.FormatFloat(float64(n)/float64(u.size), 'g', 4, 64) + u.name
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}

// ParseSize parses a size in bytes: a whole number, optionally followed
// by B, KiB, MiB or GiB (K, M and G, and KB, MB and GB, are read as the
// binary units too), for example "268435456", "256MiB" or "1G".
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes, such as 268435456 or 256MiB", s)
	}
	n, err := strconv.ParseInt(t[:i], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("size %q: %w", s, err)
	}
	var mult int64
	switch strings.ToLower(strings.TrimSpace(t[i:])) {
	case "", "b":
		mult = 1
	case "k", "kb", "ki", "kib":
		mult = 1 << 10
	case "m", "mb", "mi", "mib":
		mult = 1 << 20
	case "g", "gb", "gi", "gib":
		mult = 1 << 30
	default:
		return 0, fmt.Errorf("size %q: unknown unit %q (want B, KiB, MiB or GiB)", s, strings.TrimSpace(t[i:]))
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	if n == 0 {
		return 0, fmt.Errorf("size %q: want more than 0 bytes", s)
	}
	return n * mult, nil
}

// parse parses a profile, rejecting input that decodes to nothing.
func parse(data []byte) (p *pprofile.Profile, err error) {
	defer func() {
		// The decoder is not meant to panic on bad input; make sure.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("not a profile: %v", r)
		}
	}()
	if len(data) == 0 {
		return nil, fmt.Errorf("not a profile: empty file")
	}
	p, err = pprofile.ParseData(data)
	if err != nil {
		return nil, fmt.Errorf("not a profile: %w", err)
	}
	if len(p.SampleType) == 0 {
		return nil, fmt.Errorf("not a profile: no sample types")
	}
	return p, nil
}

// Save writes p to path as a gzipped protobuf, the format go tool pprof
// opens.
func Save(p *pprofile.Profile, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := p.Write(f); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
