//go:build !unix

package certgen

import "os"

// openNoBlock opens a file for reading.
func openNoBlock(path string) (*os.File, error) {
	return os.Open(path)
}
