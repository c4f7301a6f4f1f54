/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>

#include "../../common/elf/elfread.h"
#include "../../common/elf/record.h"
#include "../../tools/patch/elfpatch.h"

#define LDSO "/lib64/ld-linux-x86-64.so.2"
#define CL "/usr/bin/cudaload"

static void build(struct test_elf *e, const char *interp, size_t interp_len)
{
	struct test_elf_spec s = { .interp = interp, .interp_len = interp_len };
	test_elf_build(e, &s);
}

/* Our own loader-side reader must see what the patcher wrote. */
static void loader_view(const unsigned char *img, size_t len, struct elf_program *prog)
{
	struct test_elf e;
	memcpy(e.buf, img, len);
	int fd = test_elf_fd(&e, len);
	struct elf_file ef;
	char why[128];
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0, "%s", why);
	cr_assert_eq(elfread_read_program(&ef, prog, why, sizeof why), 0, "%s", why);
	elfread_release(&ef);
	close(fd);
}

Test(elfpatch_happy, grow_then_restore)
{
	elfpatch_init();
	struct test_elf e;
	build(&e, LDSO, 0);
	unsigned char orig[8192];
	memcpy(orig, e.buf, e.len);

	struct elf_facts f;
	char why[256] = "";
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0, "%s", why);
	cr_assert_eq(f.kind, FOUND_DYNAMIC);
	cr_assert_str_eq(f.interp, LDSO);
	cr_assert(!f.patched);

	struct patch_plan plan;
	cr_assert_eq(elfpatch_plan_patch(e.buf, e.len, CL, &plan, why, sizeof why), 0, "%s", why);
	cr_assert(plan.grew);
	size_t plen = (size_t)patch_plan_size(&plan);
	unsigned char *patched = patch_plan_render(e.buf, &plan);
	patch_plan_free(&plan);
	cr_assert_gt(plen, e.len);
	cr_assert_eq(memcmp(patched + 64, orig + 64, e.len - 64), 0, "only the ELF header changes in place");

	cr_assert_eq(elfpatch_inspect(patched, plen, &f, why, sizeof why), 0, "%s", why);
	cr_assert(f.patched);
	cr_assert_str_eq(f.interp, CL);
	cr_assert_str_eq(f.recorded, LDSO);

	struct elf_program prog;
	cr_assert_leq(plen, sizeof e.buf);
	loader_view(patched, plen, &prog);
	cr_assert_str_eq(prog.interp, CL);
	cr_assert_str_eq(prog.recorded, LDSO);
	int loads = 0;
	for (unsigned i = 0; i < prog.n; i++)
		loads += prog.ph[i].type == PT_LOAD;
	cr_assert_eq(loads, 2, "one PT_LOAD added");

	cr_assert_eq(elfpatch_plan_patch(patched, plen, CL, &plan, why, sizeof why), -1);
	cr_assert_str_eq(why, "already patched (original interpreter " LDSO ")");

	cr_assert_eq(elfpatch_plan_restore(patched, plen, &plan, why, sizeof why), 0, "%s", why);
	cr_assert_eq(patch_plan_size(&plan), e.len);
	unsigned char *restored = patch_plan_render(patched, &plan);
	cr_assert_eq(memcmp(restored, orig, e.len), 0, "restore is byte-identical");
	patch_plan_free(&plan);
	free(restored);
	free(patched);
}

Test(elfpatch_happy, in_place_when_it_fits)
{
	elfpatch_init();
	char region[200];
	memset(region, 0, sizeof region);
	strcpy(region, LDSO);
	struct test_elf e;
	build(&e, region, sizeof region);
	unsigned char orig[8192];
	memcpy(orig, e.buf, e.len);

	struct patch_plan plan;
	char why[256];
	cr_assert_eq(elfpatch_plan_patch(e.buf, e.len, CL, &plan, why, sizeof why), 0, "%s", why);
	cr_assert(!plan.grew);
	size_t plen = (size_t)patch_plan_size(&plan);
	unsigned char *patched = patch_plan_render(e.buf, &plan);
	patch_plan_free(&plan);
	cr_assert_eq(memcmp(patched, orig, e.interp_off), 0, "nothing before the string changes");
	cr_assert_str_eq((char *)patched + e.interp_off, CL);
	cr_assert_str_eq((char *)patched + e.interp_off + strlen(CL) + 1, RECORD_MAGIC LDSO);

	cr_assert_eq(elfpatch_plan_restore(patched, plen, &plan, why, sizeof why), 0, "%s", why);
	unsigned char *restored = patch_plan_render(patched, &plan);
	cr_assert_eq(memcmp(restored, orig, e.len), 0);
	patch_plan_free(&plan);
	free(restored);
	free(patched);
}

Test(elfpatch_happy, same_interpreter_is_a_no_op)
{
	elfpatch_init();
	struct test_elf e;
	build(&e, LDSO, 0);
	struct patch_plan plan;
	char why[256];
	cr_assert_eq(elfpatch_plan_patch(e.buf, e.len, LDSO, &plan, why, sizeof why), 0);
	cr_assert_eq(patch_plan_size(&plan), e.len);
	cr_assert_eq(plan.n_edits, 0);
	patch_plan_free(&plan);
}

Test(elfpatch_happy, cuda_rule)
{
	cr_assert(elfpatch_needed_is_cuda("libcudart.so.12"));
	cr_assert(elfpatch_needed_is_cuda("libcuda.so.1"));
	cr_assert(elfpatch_needed_is_cuda("libcublasLt.so.12"));
	cr_assert(elfpatch_needed_is_cuda("libnvinfer.so.10"));
	cr_assert(!elfpatch_needed_is_cuda("libc.so.6"));
	cr_assert(!elfpatch_needed_is_cuda("libcudata.so"));
	cr_assert(!elfpatch_needed_is_cuda("libstdc++.so.6"));
}

Test(elfpatch_sad, kinds)
{
	elfpatch_init();
	struct elf_facts f;
	char why[256];
	unsigned char script[] = "#!/bin/sh\n";
	cr_assert_eq(elfpatch_inspect(script, sizeof script - 1, &f, why, sizeof why), 0);
	cr_assert_eq(f.kind, FOUND_SCRIPT);
	unsigned char text[] = "hello";
	cr_assert_eq(elfpatch_inspect(text, 5, &f, why, sizeof why), 0);
	cr_assert_eq(f.kind, FOUND_NOT_ELF);

	struct test_elf e;
	build(&e, NULL, 0);
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0);
	cr_assert_eq(f.kind, FOUND_LIBRARY);
	struct test_elf_spec st = { .type = ET_EXEC };
	test_elf_build(&e, &st);
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0);
	cr_assert_eq(f.kind, FOUND_STATIC);
	struct test_elf_spec rel = { .type = ET_REL };
	test_elf_build(&e, &rel);
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), 0);
	cr_assert_eq(f.kind, FOUND_OBJECT);

	struct patch_plan plan;
	build(&e, NULL, 0);
	cr_assert_eq(elfpatch_plan_patch(e.buf, e.len, CL, &plan, why, sizeof why), -1);
	cr_assert_str_eq(why, "not a dynamically linked executable");
	build(&e, LDSO, 0);
	cr_assert_eq(elfpatch_plan_restore(e.buf, e.len, &plan, why, sizeof why), -1);
	cr_assert_str_eq(why, "not patched by cudaload-patch");
}

Test(elfpatch_sad, damaged_trailer)
{
	elfpatch_init();
	struct test_elf e;
	build(&e, LDSO, 0);
	struct patch_plan plan;
	char why[256];
	cr_assert_eq(elfpatch_plan_patch(e.buf, e.len, CL, &plan, why, sizeof why), 0);
	size_t plen = (size_t)patch_plan_size(&plan);
	unsigned char *patched = patch_plan_render(e.buf, &plan);
	patch_plan_free(&plan);
	for (size_t cut = 1; cut < 64; cut += 7) {
		/* the file was cut or appended to after patching */
		cr_assert_eq(elfpatch_plan_restore(patched, plen - cut, &plan, why, sizeof why), -1);
		cr_assert(strstr(why, "cannot restore byte for byte: ") && strstr(why, "--restore --force"), "%s", why);
	}
	patched[plen - 20] ^= 0xff;	/* inside the recorded original bytes */
	cr_assert_eq(elfpatch_plan_restore(patched, plen, &plan, why, sizeof why), -1);
	cr_assert_str_eq(why, "cannot restore byte for byte: the file was changed after patching (by strip, objcopy or patchelf?); --restore --force sets the original interpreter back");
	struct elf_facts f;
	cr_assert_eq(elfpatch_inspect(patched, plen, &f, why, sizeof why), 0);
	cr_assert(f.patched, "the trailer itself is intact");
	patched[plen - 12] ^= 0xff;	/* the trailer's start offset */
	cr_assert_eq(elfpatch_inspect(patched, plen, &f, why, sizeof why), 0);
	cr_assert(!f.patched && f.recorded[0], "a record without a trailer is not 'patched'");
	free(patched);
}

Test(elfpatch_sad, poked)
{
	elfpatch_init();
	struct test_elf good;
	build(&good, LDSO, 0);
	uint64_t huge = 0x7fffffffffffULL;
	uint16_t many = 0x4000, badent = 16;
	const struct {
		size_t off;
		const void *bytes;
		size_t n;
		const char *why;
	} pokes[] = {
		{ EI_CLASS, "\x09", 1, "unknown ELF class 9" },
		{ EI_DATA, "\x07", 1, "unknown ELF byte order 7" },
		{ offsetof(Elf64_Ehdr, e_phoff), &huge, 8, "program headers lie outside the file" },
		{ offsetof(Elf64_Ehdr, e_phnum), &many, 2, "program headers lie outside the file" },
		{ offsetof(Elf64_Ehdr, e_shoff), &huge, 8, "section headers lie outside the file or have a bad size" },
		{ offsetof(Elf64_Ehdr, e_shnum), &many, 2, "section headers lie outside the file or have a bad size" },
		{ offsetof(Elf64_Ehdr, e_phentsize), &badent, 2, "program header entry size 16, expected 56" },
		{ offsetof(Elf64_Ehdr, e_shentsize), &badent, 2, "section headers lie outside the file or have a bad size" },
		{ good.interp_off + strlen(LDSO), "X", 1, "PT_INTERP is not NUL-terminated" },
		{ good.phoff + offsetof(Elf64_Phdr, p_filesz), &huge, 8, "segment 0 lies outside the file (truncated?)" },
	};
	for (size_t i = 0; i < sizeof pokes / sizeof pokes[0]; i++) {
		struct test_elf e = good;
		memcpy(e.buf + pokes[i].off, pokes[i].bytes, pokes[i].n);
		struct elf_facts f;
		char why[256] = "";
		cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), -1, "poke %zu accepted", i);
		cr_assert_str_eq(why, pokes[i].why, "poke %zu", i);
	}
	struct elf_facts f;
	char why[256];
	struct test_elf e = good;
	e.buf[e.interp_off] = '\0';	/* found by the fuzzer: nothing to record, nothing to restore */
	cr_assert_eq(elfpatch_inspect(e.buf, e.len, &f, why, sizeof why), -1);
	cr_assert_str_eq(why, "PT_INTERP names no interpreter");
	cr_assert_eq(elfpatch_inspect(good.buf, 40, &f, why, sizeof why), -1);
	cr_assert_str_eq(why, "truncated ELF header");
}

/* patch_plan_write writes what patch_plan_render makes, the padding as a
 * hole (no blocks on disk for a large bss). */
Test(elfpatch_write, as_rendered_with_a_hole)
{
	elfpatch_init();
	struct test_elf e;
	build(&e, LDSO, 0);
	struct patch_plan plan;
	char why[256];
	cr_assert_eq(elfpatch_plan_patch(e.buf, e.len, CL, &plan, why, sizeof why), 0, "%s", why);
	plan.pad += 1 << 20;	/* as a bss would ask; the layout does not matter here */
	size_t plen = (size_t)patch_plan_size(&plan);
	unsigned char *want = patch_plan_render(e.buf, &plan);
	char path[] = "/tmp/cudaload-write-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	unlink(path);
	cr_assert_eq(patch_plan_write(fd, e.buf, &plan), 0);
	struct stat st;
	cr_assert_eq(fstat(fd, &st), 0);
	cr_assert_eq((size_t)st.st_size, plen);
	unsigned char *got = malloc(plen);
	cr_assert_eq(pread(fd, got, plen, 0), (ssize_t)plen);
	cr_assert_eq(memcmp(got, want, plen), 0);
	close(fd);
	free(got);
	free(want);
	patch_plan_free(&plan);
	/* does the file system keep holes at all? */
	char probe[] = "/tmp/cudaload-hole-XXXXXX";
	int pfd = mkstemp(probe);
	cr_assert(pfd >= 0);
	unlink(probe);
	struct stat pst;
	cr_assert(lseek(pfd, 1 << 20, SEEK_SET) > 0 && write(pfd, "x", 1) == 1 && fstat(pfd, &pst) == 0);
	close(pfd);
	if ((size_t)pst.st_blocks * 512 >= 1 << 19)
		cr_skip_test("SKIP the hole: the file system under /tmp stores none");
	cr_assert_lt((size_t)st.st_blocks * 512, plen / 2, "the padding is a hole");
}

Test(elfpatch_write, overlapping_edits_are_refused)
{
	unsigned char img[64] = { 0 };
	struct patch_plan plan = { .keep = sizeof img };
	plan.edits[0] = (struct plan_edit){ 8, 8, malloc(8) };
	plan.edits[1] = (struct plan_edit){ 12, 8, malloc(8) };
	plan.n_edits = 2;
	int fd = open("/dev/null", O_WRONLY);
	cr_assert_eq(patch_plan_write(fd, img, &plan), -EINVAL, "never guess which bytes win");
	plan.edits[1].off = 60;	/* past the kept bytes */
	cr_assert_eq(patch_plan_write(fd, img, &plan), -EINVAL);
	plan.edits[1].off = 16;
	cr_assert_eq(patch_plan_write(fd, img, &plan), 0);
	close(fd);
	patch_plan_free(&plan);
	cr_assert_eq(plan.n_edits, 0);
	cr_assert_null(plan.tail);
}
