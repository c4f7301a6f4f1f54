/* SPDX-License-Identifier: MIT */
/* chain_jump(vector, words, sp, entry): copy the start-up vector to sp and
 * enter ld.so there, as the kernel would (rdx = 0: no exit handler yet).
 * Nothing below runs on the old stack: the copy may overwrite its frames. */
	.text
	.globl chain_jump
	.type chain_jump, @function
chain_jump:
	mov	%rcx, %r8
	mov	%rsi, %rcx
	mov	%rdi, %rsi
	mov	%rdx, %rdi
	mov	%rdx, %rsp
	cld
	rep movsq
	xor	%edx, %edx
	xor	%ebp, %ebp
	jmp	*%r8
	.size chain_jump, .-chain_jump

/* AT_ENTRY while chaining: ld.so jumps here with the stack as the program
 * expects it and rdx = its exit handler.  Restore the environment, then go
 * to the program's own entry with both untouched. */
	.globl chain_entry_trampoline
	.type chain_entry_trampoline, @function
chain_entry_trampoline:
	mov	%rdx, %r12		/* callee-saved: survives the call */
	call	chain_restore_env	/* rsp is 16-aligned here, as at any entry */
	mov	%r12, %rdx
	jmp	*chain_program_entry(%rip)
	.size chain_entry_trampoline, .-chain_entry_trampoline

	.section .note.GNU-stack,"",@progbits
