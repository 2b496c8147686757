package cost

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/google/pprof/profile"
)

// DefaultMaxSize is the largest profile, in bytes after decompression,
// that Load reads, so that a gzip bomb cannot exhaust memory.
const DefaultMaxSize int64 = 256 << 20

// ErrTooLarge is returned (wrapped) for a profile larger than the limit.
var ErrTooLarge = errors.New("profile larger than the limit")

// Load reads a profile file in any format pprof reads, or a callgrind
// output file of one window (ReadCallgrind: one dump, its threads
// merged), of at most DefaultMaxSize bytes decompressed; its errors name
// the file.
func Load(path string) (*profile.Profile, error) {
	return LoadMax(path, DefaultMaxSize)
}

// LoadMax is Load with a limit of maxSize bytes decompressed.
func LoadMax(path string, maxSize int64) (*profile.Profile, error) {
	data, err := readLimited(path, maxSize)
	var p *profile.Profile
	switch {
	case err != nil:
	case isCallgrind(data):
		var parts []*Part
		if parts, err = ReadCallgrind(bytes.NewReader(data)); err == nil && len(parts) > 1 {
			err = fmt.Errorf("%d dumps in one callgrind file: certbench reads one window a file (run callgrind with --combine-dumps=no)", len(parts))
		} else if err == nil {
			p = parts[0].Profile
		}
		var se *SyntaxError
		if errors.As(err, &se) {
			se.File, err = path, se
			return nil, err
		}
	default:
		p, err = parse(data)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// readLimited returns the file's content, gunzipped, of at most maxSize bytes.
func readLimited(path string, maxSize int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, err
	} else if fi.IsDir() {
		return nil, errors.New("is a directory, want a profile file")
	}
	var r io.Reader = f
	gz, err := gzip.NewReader(f)
	if err == nil {
		defer gz.Close()
		r = gz
	} else if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(r, maxSize+1))
	switch {
	case err != nil:
		return nil, fmt.Errorf("not a profile: %w", err)
	case int64(len(data)) > maxSize:
		return nil, fmt.Errorf("%w of %d bytes", ErrTooLarge, maxSize)
	case bytes.HasPrefix(data, []byte{0x1f, 0x8b}):
		// pprof would decompress this layer again, with no limit.
		return nil, errors.New("not a profile: gzip inside gzip, or a broken gzip header")
	}
	return data, nil
}

// isCallgrind reports whether data starts like a callgrind output file:
// comments, then a header line callgrind writes first.
func isCallgrind(data []byte) bool {
	for len(data) > 0 {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if len(line) > 0 && line[0] != '#' {
			for _, key := range []string{"version:", "creator:", "pid:", "cmd:", "part:", "desc:", "positions:", "events:"} {
				if bytes.HasPrefix(line, []byte(key)) {
					return true
				}
			}
			return false
		}
		data = rest
	}
	return false
}

// parse parses a profile, rejecting input that decodes to nothing.
func parse(data []byte) (p *profile.Profile, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("not a profile: %v", r)
		}
	}()
	if len(data) == 0 {
		return nil, errors.New("not a profile: empty file")
	}
	if p, err = profile.ParseData(data); err != nil {
		return nil, fmt.Errorf("not a profile: %w", err)
	}
	if len(p.SampleType) == 0 {
		return nil, errors.New("not a profile: no sample types")
	}
	return p, nil
}

// Save writes p to path as a gzipped protobuf.
func Save(p *profile.Profile, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = p.Write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
