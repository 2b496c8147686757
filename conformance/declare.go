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

// Declare adds deviations to those of the store registered under the name
// store, known to every differential pass on it ([Check] and [RunWith] with
// Options.Store, "certbench conformance"). Call it from the init function
// that registers the store. It panics on an empty store name and on a
// deviation without a Name or an Explains.
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

// Declared returns the deviations declared for store, in order.
func Declared(store string) []Deviation {
	declaredMu.RLock()
	defer declaredMu.RUnlock()
	return slices.Clone(declared[store])
}
