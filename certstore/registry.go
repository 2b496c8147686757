package certstore

import (
	"fmt"
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
	infos := make([]Info, 0, len(registry))
	for _, info := range registry {
		infos = append(infos, info)
	}
	slices.SortFunc(infos, func(a, b Info) int { return strings.Compare(a.Name, b.Name) })
	return infos
}

// LookupFactory returns the registered store with that name. Its error
// lists the registered names.
func LookupFactory(name string) (Info, error) {
	registryMu.RLock()
	info, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		var names []string
		for _, i := range Registered() {
			names = append(names, i.Name)
		}
		return Info{}, fmt.Errorf("unknown store %q (registered: %s)", name, strings.Join(names, ", "))
	}
	return info, nil
}
