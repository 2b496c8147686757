package scenarios

import "github.com/certbench/certbench/certgen"

// Certificate generation moved to package certgen. These aliases keep
// callers that have not moved yet compiling; new code uses certgen.

// PoolSpec is certgen.PoolSpec.
//
// Deprecated: use certgen.PoolSpec.
type PoolSpec = certgen.PoolSpec

// Pool is certgen.Pool.
//
// Deprecated: use certgen.Pool.
type Pool = certgen.Pool

// Fixture is certgen.Fixture.
//
// Deprecated: use certgen.Fixture.
type Fixture = certgen.Fixture

// KeyType is certgen.KeyType.
//
// Deprecated: use certgen.KeyType.
type KeyType = certgen.KeyType

// Issuer is certgen.Issuer.
//
// Deprecated: use certgen.Issuer.
type Issuer = certgen.Issuer

// Leaf is certgen.Leaf.
//
// Deprecated: use certgen.Leaf.
type Leaf = certgen.Leaf

// Key types, as in certgen.
//
// Deprecated: use certgen's.
const (
	P256    = certgen.P256
	RSA2048 = certgen.RSA2048
	Mixed   = certgen.Mixed
)

// Cache settings, as in certgen.
//
// Deprecated: use certgen's.
const (
	PoolCacheEnv = certgen.PoolCacheEnv
	DiskCacheMin = certgen.DiskCacheMin
)

// Functions, as in certgen.
//
// Deprecated: use certgen's.
var (
	NewPool         = certgen.NewPool
	NewIssuer       = certgen.NewIssuer
	CachedPool      = certgen.CachedPool
	LoadPool        = certgen.LoadPool
	PoolCacheDir    = certgen.PoolCacheDir
	SetPoolCacheDir = certgen.SetPoolCacheDir
	PoolCachePath   = certgen.PoolCachePath
	Epoch           = certgen.Epoch
)
