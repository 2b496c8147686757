package conformance

import (
	"fmt"
	"slices"
	"sync"
)

var (
	declaredMu sync.RWMutex
	declared   = map[string][]Deviation{}
)

// Declare records deviations as the documented departures from the lookup
// rules of the store registered (with certstore.Register) under the name
// store, so that every run of the differential pass on it knows them:
// [Check] and [RunWith] with Options.Store set, and "certbench conformance
// --stores NAME". Call it from the init function that registers the store.
// A divergence a declared deviation explains is counted under its name; any
// other still fails. Declaring again for a store adds to its deviations.
//
// Declare panics, as these are programming errors, on an empty store name
// and on a deviation without a Name or an Explains.
func Declare(store string, deviations ...Deviation) {
	if store == "" {
		panic("conformance: Declare: empty store name")
	}
	for _, d := range deviations {
		if d.Name == "" || d.Explains == nil {
			panic(fmt.Sprintf("conformance: Declare(%q): a deviation needs a Name and an Explains", store))
		}
	}
	declaredMu.Lock()
	defer declaredMu.Unlock()
	declared[store] = append(declared[store], deviations...)
}

// Declared returns the deviations declared for store, in the order they
// were declared.
func Declared(store string) []Deviation {
	declaredMu.RLock()
	defer declaredMu.RUnlock()
	return slices.Clone(declared[store])
}
