package cost

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/certbench/certbench/results"
	"github.com/google/pprof/profile"
)

// The sample types of a heap profile, in the runtime's order (see the
// package doc for what they hold in a profile certbench captured).
const (
	AllocObjects = "alloc_objects" // objects allocated (unit "count")
	AllocSpace   = "alloc_space"   // bytes allocated (unit "bytes")
	InuseObjects = "inuse_objects" // objects live afterwards (unit "count")
	InuseSpace   = "inuse_space"   // bytes live afterwards (unit "bytes")
)

// heapSampleTypes are the sample types of a heap profile, in order.
var heapSampleTypes = []string{AllocObjects, AllocSpace, InuseObjects, InuseSpace}

// SampleTypeOf returns the sample type whose value per op is the figure
// of a unit: alloc_objects for allocs/op, alloc_space for B/op, and the
// simulated CPU's instructions and est_cycles; "" for any other unit.
func SampleTypeOf(unit string) string {
	return map[string]string{results.UnitAllocs: AllocObjects, results.UnitBytes: AllocSpace,
		results.UnitInstructions: Instructions, results.UnitEstCycles: EstCycles}[unit]
}

// Total returns the sum of a sample type's values over p's samples, and
// whether p has that sample type.
func Total(p *profile.Profile, sampleType string) (int64, bool) {
	i, err := sampleIndex(p, sampleType)
	if err != nil {
		return 0, false
	}
	var t int64
	for _, s := range p.Sample {
		if i < len(s.Value) {
			t += s.Value[i]
		}
	}
	return t, true
}

// Info is what a profile was taken of, recorded as a comment ([SetInfo])
// so that figures read back can be divided per op ([InfoOf]).
type Info struct {
	Scenario string `json:"scenario,omitempty"`
	Store    string `json:"store,omitempty"`
	// Ops is the number of measured ops the profile's (alloc_*) values add
	// up over; 0 when unknown.
	Ops int `json:"ops"`
	// MemBytes and MemObjects are what MemStats (TotalAlloc, Mallocs) say
	// the same ops allocated, a cross-check of alloc_*; 0 when unknown.
	MemBytes   uint64 `json:"mem_bytes,omitempty"`
	MemObjects uint64 `json:"mem_objects,omitempty"`
}

// FileName returns the conventional file name of a captured heap profile,
// "<scenario>.<store>.pb.gz".
func FileName(scenario, store string) string {
	return scenario + "." + store + ".pb.gz"
}

// SimFileName returns the conventional file name of a profile of the
// simulated CPU, "<scenario>.<store>.sim.pb.gz", or for one of several
// samples (from 1) "<scenario>.<store>.<sample>.sim.pb.gz".
func SimFileName(scenario, store string, sample int) string {
	if sample > 0 {
		return fmt.Sprintf("%s.%s.%d.sim.pb.gz", scenario, store, sample)
	}
	return scenario + "." + store + ".sim.pb.gz"
}

// infoComment is the prefix of the comment that records Info.
const infoComment = "certbench:"

// comment returns the comment line recording info:
// "certbench: scenario=S store=X ops=N [mem_bytes=B mem_objects=O]".
func (info Info) comment() string {
	var b strings.Builder
	b.WriteString(infoComment)
	if info.Scenario != "" {
		fmt.Fprintf(&b, " scenario=%s", info.Scenario)
	}
	if info.Store != "" {
		fmt.Fprintf(&b, " store=%s", info.Store)
	}
	fmt.Fprintf(&b, " ops=%d", info.Ops)
	if info.MemBytes > 0 || info.MemObjects > 0 {
		fmt.Fprintf(&b, " mem_bytes=%d mem_objects=%d", info.MemBytes, info.MemObjects)
	}
	return b.String()
}

// InfoOf reads back the Info recorded in p (zero when none).
func InfoOf(p *profile.Profile) Info {
	var info Info
	if p == nil {
		return info
	}
	for _, c := range p.Comments {
		rest, ok := strings.CutPrefix(c, infoComment)
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			switch k {
			case "scenario":
				info.Scenario = v
			case "store":
				info.Store = v
			case "ops":
				if n, err := strconv.Atoi(v); err == nil && n > 0 {
					info.Ops = n
				}
			case "mem_bytes":
				info.MemBytes, _ = strconv.ParseUint(v, 10, 64)
			case "mem_objects":
				info.MemObjects, _ = strconv.ParseUint(v, 10, 64)
			}
		}
		return info
	}
	return info
}

// SetInfo records info in p as its first comment, replacing any earlier.
func SetInfo(p *profile.Profile, info Info) {
	comments := []string{info.comment()}
	for _, c := range p.Comments {
		if !strings.HasPrefix(c, infoComment) {
			comments = append(comments, c)
		}
	}
	p.Comments = comments
}

// CheckHeap returns an error unless p has a Go heap profile's sample types.
func CheckHeap(p *profile.Profile) error {
	if p == nil {
		return fmt.Errorf("profile: nil profile")
	}
	if len(p.SampleType) != len(heapSampleTypes) {
		return fmt.Errorf("heap profile has %d sample types, want %d", len(p.SampleType), len(heapSampleTypes))
	}
	for i, st := range p.SampleType {
		if st == nil || st.Type != heapSampleTypes[i] {
			return fmt.Errorf("heap profile sample type %d is %s, want %s", i, sampleTypes(p)[i], heapSampleTypes[i])
		}
	}
	return nil
}
