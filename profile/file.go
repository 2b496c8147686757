package profile

import (
	"fmt"
	"os"

	pprofile "github.com/google/pprof/profile"
)

// Load reads a profile file in any format pprof reads (normally gzipped
// protobuf, *.pb.gz). Its errors name the file, including for a file that is
// not a profile.
func Load(path string) (*pprofile.Profile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	p, err := parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
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
