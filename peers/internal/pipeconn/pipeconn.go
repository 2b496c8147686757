// Package pipeconn gives the peer adapters a connection without IP
// addresses, like either end of net.Pipe, for ClientHelloInfo.Conn: the
// real stores read the local address of hellos without SNI.
package pipeconn

import (
	"net"
	"time"
)

// Conn is a connection with "pipe" addresses that reads and writes nothing.
type Conn struct{ net.Conn }

type addr struct{}

func (addr) Network() string { return "pipe" }
func (addr) String() string  { return "pipe" }

// LocalAddr returns a "pipe" address, which is no IP address.
func (Conn) LocalAddr() net.Addr { return addr{} }

// RemoteAddr returns a "pipe" address, which is no IP address.
func (Conn) RemoteAddr() net.Addr { return addr{} }

// SetDeadline does nothing.
func (Conn) SetDeadline(time.Time) error { return nil }

// SetReadDeadline does nothing.
func (Conn) SetReadDeadline(time.Time) error { return nil }

// SetWriteDeadline does nothing.
func (Conn) SetWriteDeadline(time.Time) error { return nil }

// Close does nothing.
func (Conn) Close() error { return nil }

// Read fails with net.ErrClosed.
func (Conn) Read([]byte) (int, error) { return 0, net.ErrClosed }

// Write fails with net.ErrClosed.
func (Conn) Write([]byte) (int, error) { return 0, net.ErrClosed }
