package certstore

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Factory makes a new, empty store.
type Factory func() Store

// Info describes a registered store.
type Info struct {
	// Name is the name the store is registered under.
	Name string
	// Description is one line saying what the store is.
	Description string
	// New makes a new, empty store.
	New Factory
}

var (
	registryMu sync.RWMutex
	registry   = map[string]Info{}
)

// Register makes a store available under name (what --stores takes),
// with a one-line description, from an init function of its package. It
// panics on an empty, taken or nil-factory name, or one with a space, ",",
// "/", "=", tab or newline (they would break lists and benchmark names).
func Register(name, description string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || strings.ContainsAny(name, " ,/=\t\n") {
		panic(fmt.Sprintf("certstore: Register: bad store name %q", name))
	}
	if f == nil {
		panic("certstore: Register: nil factory for " + name)
	}
	if _, dup := registry[name]; dup {
		panic("certstore: Register called twice for " + name)
	}
	registry[name] = Info{Name: name, Description: description, New: f}
}

// Registered returns every registered store, sorted by name.
func Registered() []Info {
	registryMu.RLock()
	defer registryMu.RUnlock()
	return slices.SortedFunc(maps.Values(registry), func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
}

// LookupFactory returns the registered store with that name. Its error
// lists the registered names.
func LookupFactory(name string) (Info, error) {
	registryMu.RLock()
	defer registryMu.RUnlock()
	info, ok := registry[name]
	if !ok {
		return Info{}, fmt.Errorf("unknown store %q (registered: %s)", name, strings.Join(slices.Sorted(maps.Keys(registry)), ", "))
	}
	return info, nil
}
