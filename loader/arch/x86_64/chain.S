/* SPDX-License-Identifier: MIT */
/* The hand-over's code: one block, aligned to its size so that it lies on
 * one page, the page of our text that stays mapped (chain.c), placed right
 * after the ELF header and notes (loader/hot.ld).  It reads struct chain_handover:
 * program_entry at 0, env_slot at 8, env_original at 16, unmap[4][2] at 24. */
	.section .text.handover,"ax",@progbits
	.balign	256
chain_code:

/* chain_jump(vector, words, sp, entry): copy the start-up vector to sp,
 * give back the heap (chain_release) and the rest of our image, and enter
 * ld.so there, as the kernel would (rdx = 0: no exit handler yet).
 * Nothing below runs on the old stack: the copy may overwrite its frames. */
	.globl chain_jump
	.type chain_jump, @function
chain_jump:
	mov	%rcx, %r12		/* callee-saved: survives the call */
	mov	%rsi, %rcx
	mov	%rdi, %rsi
	mov	%rdx, %rdi
	cld
	rep movsq			/* from below the old frames, where it was built */
	mov	%rdx, %rsp		/* then the new stack: nothing lies below it */
	call	chain_release		/* rsp = sp, 16-aligned: frames go below the vector */
	lea	chain_handover+24(%rip), %rbx
	mov	$4, %r13d
1:	mov	(%rbx), %rdi
	mov	8(%rbx), %rsi
	test	%rsi, %rsi
	jz	2f
	mov	$11, %eax		/* munmap; this page stays */
	syscall
2:	add	$16, %rbx
	dec	%r13d
	jnz	1b
	xor	%edx, %edx
	xor	%ebp, %ebp
	jmp	*%r12
	.size chain_jump, .-chain_jump

/* AT_ENTRY while chaining: ld.so jumps here with the stack as the program
 * expects it and rdx = its exit handler.  Put the environment back, then go
 * to the program's own entry with both untouched. */
	.globl chain_entry_trampoline
	.type chain_entry_trampoline, @function
chain_entry_trampoline:
	mov	chain_handover+8(%rip), %rax
	test	%rax, %rax
	jz	1f
	mov	chain_handover+16(%rip), %rcx
	mov	%rcx, (%rax)
1:	jmp	*chain_handover(%rip)
	.size chain_entry_trampoline, .-chain_entry_trampoline

	/* pads the block to 256 bytes; an error if the code outgrew them */
	.org	chain_code + 256, 0xcc

	.section .note.GNU-stack,"",@progbits
