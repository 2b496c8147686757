package bench

import (
	"io"
	"net"
	"sync"
	"time"
)

// memPipe returns the two ends of an in-memory, buffered, full-duplex
// connection whose writes never wait for the peer to read: over net.Pipe a
// TLS 1.3 server writing its tickets and the client writing its Finished
// would wait for ever. Deadlines do nothing (handshakes are bounded by a
// context, and Close wakes a blocked Read).
func memPipe() (net.Conn, net.Conn) {
	a, b := newMemBuf(), newMemBuf()
	return &memConn{in: a, out: b}, &memConn{in: b, out: a}
}

// memBuf is one direction of a memPipe.
type memBuf struct {
	mu     sync.Mutex
	cond   sync.Cond
	data   []byte
	closed bool
}

func newMemBuf() *memBuf {
	b := &memBuf{}
	b.cond.L = &b.mu
	return b
}

func (b *memBuf) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.cond.Broadcast()
}

type memConn struct {
	in, out   *memBuf
	closeOnce sync.Once
}

// Read returns buffered bytes, waiting for some while the connection is
// open; after either end closed it returns what is left, then io.EOF.
func (c *memConn) Read(p []byte) (int, error) {
	b := c.in
	b.mu.Lock()
	defer b.mu.Unlock()
	for len(b.data) == 0 && !b.closed {
		b.cond.Wait()
	}
	if len(b.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, b.data)
	b.data = b.data[n:]
	if len(b.data) == 0 {
		b.data = b.data[:0:0] // let a large buffer go
	}
	return n, nil
}

// Write appends p to the peer's buffer; it fails with io.ErrClosedPipe
// once either end closed.
func (c *memConn) Write(p []byte) (int, error) {
	b := c.out
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return 0, io.ErrClosedPipe
	}
	b.data = append(b.data, p...)
	b.mu.Unlock()
	b.cond.Broadcast()
	return len(p), nil
}

// Close closes both directions: the peer reads what was written, then
// io.EOF; blocked and later reads on this end return io.EOF.
func (c *memConn) Close() error {
	c.closeOnce.Do(func() {
		c.in.close()
		c.out.close()
	})
	return nil
}

func (c *memConn) LocalAddr() net.Addr                { return memAddr{} }
func (c *memConn) RemoteAddr() net.Addr               { return memAddr{} }
func (c *memConn) SetDeadline(t time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(t time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(t time.Time) error { return nil }

// memAddr is the address of both ends of a memPipe.
type memAddr struct{}

func (memAddr) Network() string { return "mem" }
func (memAddr) String() string  { return "mem" }
