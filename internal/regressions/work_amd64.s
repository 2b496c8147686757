#include "textflag.h"

// func loop(n uint64) uint64
//
// n iterations of exactly WorkLoopInstructions (4) instructions each,
// after a fixed prologue; the result only keeps the loop from being
// pointless.
TEXT ·loop(SB), NOSPLIT, $0-16
	MOVQ n+0(FP), CX
	XORQ AX, AX
	TESTQ CX, CX
	JZ done
again:
	ADDQ CX, AX
	ROLQ $5, AX
	DECQ CX
	JNZ again
done:
	MOVQ AX, ret+8(FP)
	RET
