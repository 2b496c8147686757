#include "textflag.h"

// func request(args *[6]uintptr, def uintptr) uintptr
//
// Valgrind's client request: the four rotations of DI (by 3, 13, 61 and
// 51 bits, 128 in all) leave it unchanged on a real CPU and mark the
// request for valgrind's JIT, which reads the request and its arguments
// from the array AX points at and leaves its answer in DX; the default in
// DX is the answer outside valgrind.
TEXT ·request(SB), NOSPLIT, $0-24
	MOVQ args+0(FP), AX
	MOVQ def+8(FP), DX
	ROLQ $3, DI
	ROLQ $13, DI
	ROLQ $61, DI
	ROLQ $51, DI
	XCHGQ BX, BX
	MOVQ DX, ret+16(FP)
	RET
