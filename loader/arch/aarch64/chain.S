/* SPDX-License-Identifier: MIT */
/* The hand-over's code: one block, aligned to its size so that it lies on
 * one page, the page of our text that stays mapped (chain.c), placed right
 * after the ELF header and notes (loader/hot.ld).  It reads struct chain_handover:
 * program_entry at 0, env_slot at 8, env_original at 16, unmap[4][2] at 24. */
	.section .text.handover,"ax",%progbits
	.balign	256
chain_code:

/* chain_jump(vector, words, sp, entry): copy the start-up vector to sp,
 * give back the heap (chain_release) and the rest of our image, and enter
 * ld.so there, as the kernel would (x0 = 0: no exit handler yet).
 * Nothing below runs on the old stack: the copy may overwrite its frames. */
	.globl chain_jump
	.type chain_jump, %function
chain_jump:
	mov	x19, x3			/* callee-saved: survives the call */
	mov	x5, x2
1:	cbz	x1, 2f
	ldr	x4, [x0], #8
	str	x4, [x5], #8
	sub	x1, x1, #1
	b	1b
2:	mov	sp, x2			/* after the copy: nothing lies below it */
	bl	chain_release		/* sp 16-aligned: frames go below the vector */
	adrp	x20, chain_handover
	add	x20, x20, :lo12:chain_handover
	add	x20, x20, #24
	mov	x21, #4
3:	ldp	x0, x1, [x20], #16
	cbz	x1, 4f
	mov	x8, #215		/* munmap; this page stays */
	svc	#0
4:	subs	x21, x21, #1
	b.ne	3b
	mov	x0, #0
	mov	x29, #0
	mov	x30, #0
	br	x19
	.size chain_jump, .-chain_jump

/* AT_ENTRY while chaining: ld.so jumps here with the stack as the program
 * expects it and x0 = its exit handler.  Put the environment back, then go
 * to the program's own entry with both untouched. */
	.globl chain_entry_trampoline
	.type chain_entry_trampoline, %function
chain_entry_trampoline:
	adrp	x16, chain_handover
	add	x16, x16, :lo12:chain_handover
	ldr	x17, [x16, #8]
	cbz	x17, 1f
	ldr	x9, [x16, #16]
	str	x9, [x17]
1:	ldr	x16, [x16]
	mov	x30, #0
	br	x16
	.size chain_entry_trampoline, .-chain_entry_trampoline

	/* pads the block to 256 bytes; an error if the code outgrew them */
	.org	chain_code + 256, 0

	.section .note.GNU-stack,"",%progbits
