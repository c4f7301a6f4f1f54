/* SPDX-License-Identifier: MIT */
/* chain_jump(vector, words, sp, entry): copy the start-up vector to sp and
 * enter ld.so there, as the kernel would (x0 = 0: no exit handler yet).
 * Nothing below runs on the old stack: the copy may overwrite its frames. */
	.text
	.globl chain_jump
	.type chain_jump, %function
chain_jump:
	mov	sp, x2
1:	cbz	x1, 2f
	ldr	x4, [x0], #8
	str	x4, [x2], #8
	sub	x1, x1, #1
	b	1b
2:	mov	x0, #0
	mov	x29, #0
	mov	x30, #0
	br	x3
	.size chain_jump, .-chain_jump

/* AT_ENTRY while chaining: ld.so jumps here with the stack as the program
 * expects it and x0 = its exit handler.  Restore the environment, then go to
 * the program's own entry with both untouched. */
	.globl chain_entry_trampoline
	.type chain_entry_trampoline, %function
chain_entry_trampoline:
	mov	x19, x0			/* callee-saved: survives the call */
	bl	chain_restore_env
	mov	x0, x19
	adrp	x16, chain_program_entry
	ldr	x16, [x16, :lo12:chain_program_entry]
	mov	x30, #0
	br	x16
	.size chain_entry_trampoline, .-chain_entry_trampoline

	.section .note.GNU-stack,"",%progbits
