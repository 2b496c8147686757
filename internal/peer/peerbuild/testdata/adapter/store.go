// Package store is an adapter for the tests of package peerbuild: it
// imports the fake proxy module example.com/proxy.
package store

import (
	"example.com/other"
	"example.com/proxy/pkg/a"
	"example.com/proxy/pkg/b"
)

// Name is the name the store is registered under.
const Name = "proxy"

// Store is the adapter.
type Store struct{ m *a.Manager }

// Update calls the proxy.
func (s *Store) Update() error {
	return s.m.Update(b.Config{})
}

func helper() int {
	return other.N
}
