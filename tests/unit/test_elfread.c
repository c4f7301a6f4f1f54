/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/elfread.h"
#include "../../common/record.h"

#define OWNER "NVIDIA Corporation"
#define SECTION ".note.cuda.fwd_compatibility"

static const struct test_elf_spec with_note = {
	.interp = "/lib64/ld-linux-x86-64.so.2",
	.note_owner = OWNER,
	.note_desc = "{\"format\":1,\"CUDA version\":\"12.9\"}",
};

Test(elfread_happy, header_interp_note)
{
	struct test_elf e;
	test_elf_build(&e, &with_note);
	int fd = test_elf_fd(&e, e.len);
	struct elf_file ef;
	struct elf_program prog;
	char why[128] = "", desc[256];
	cr_assert_eq(elf_open_fd(&ef, fd, why, sizeof why), 0, "%s", why);
	cr_assert_eq(ef.cls, ELFCLASS64);
	cr_assert_eq(ef.machine, EM_X86_64);
	cr_assert_eq(elf_read_program(&ef, &prog, why, sizeof why), 0, "%s", why);
	cr_assert(prog.has_interp);
	cr_assert_str_eq(prog.interp, "/lib64/ld-linux-x86-64.so.2");
	cr_assert_str_eq(prog.recorded, "");
	long n = elf_find_note(&ef, SECTION, OWNER, desc, sizeof desc, why, sizeof why);
	cr_assert_eq(n, (long)strlen(with_note.note_desc));
	cr_assert_str_eq(desc, with_note.note_desc);
	cr_assert_eq(elf_find_note(&ef, SECTION, "Someone Else", desc, sizeof desc, why, sizeof why), 0);
	cr_assert_eq(elf_find_note(&ef, ".note.other", OWNER, desc, sizeof desc, why, sizeof why), 0);
	elf_release(&ef);
	close(fd);
}

Test(elfread_happy, record_after_nul)
{
	static const char interp[] = "/usr/bin/cudaload\0" RECORD_MAGIC "/nix/store/abc-glibc-2.40/lib/ld-linux-x86-64.so.2\0\0\0";
	struct test_elf_spec s = { .interp = interp, .interp_len = sizeof interp };
	struct test_elf e;
	test_elf_build(&e, &s);
	int fd = test_elf_fd(&e, e.len);
	struct elf_file ef;
	struct elf_program prog;
	char why[128];
	cr_assert_eq(elf_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elf_read_program(&ef, &prog, why, sizeof why), 0, "%s", why);
	cr_assert_str_eq(prog.interp, "/usr/bin/cudaload");
	cr_assert_str_eq(prog.recorded, "/nix/store/abc-glibc-2.40/lib/ld-linux-x86-64.so.2");
	elf_release(&ef);
	close(fd);
}

Test(elfread_happy, real_loader_and_program)
{
	int fd = open("/bin/true", O_RDONLY);
	cr_assert(fd >= 0);
	struct elf_file ef;
	struct elf_program prog;
	char why[128];
	cr_assert_eq(elf_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elf_read_program(&ef, &prog, why, sizeof why), 0);
	cr_assert(prog.has_interp);
	elf_release(&ef);
	close(fd);

	fd = open(prog.interp, O_RDONLY);
	cr_assert(fd >= 0);
	cr_assert_eq(elf_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elf_read_program(&ef, &prog, why, sizeof why), 0);
	cr_assert_geq(elf_glibc_minor(&ef, prog.ph, prog.n), 34, "Debian 12's ld.so defines GLIBC_2.34+");
	elf_release(&ef);
	close(fd);
}

Test(elfread_sad, split_interp)
{
	char i[64], r[64];
	cr_assert_eq(elf_split_interp("abc", 3, i, sizeof i, r, sizeof r), -1);
	cr_assert_eq(elf_split_interp("abc\0" RECORD_MAGIC "/x", 4 + sizeof RECORD_MAGIC - 1 + 2, i, sizeof i, r, sizeof r), 0);
	cr_assert_str_eq(r, "", "a record without its NUL is ignored");
	cr_assert_eq(elf_split_interp("abc\0other", 10, i, sizeof i, r, sizeof r), 0);
	cr_assert_str_eq(r, "");
	cr_assert_eq(elf_split_interp("abcdef\0", 7, i, 4, r, sizeof r), -1);
}

/* Poke bytes into a good ELF; each must fail with the given reason. */
struct poke {
	size_t off;
	const void *bytes;
	size_t n;
	const char *why;
	int stage;	/* 0 open, 1 program, 2 note */
};

static void expect_failure(const struct test_elf *good, size_t len, const struct poke *p)
{
	struct test_elf e = *good;
	if (p && p->n)
		memcpy(e.buf + p->off, p->bytes, p->n);
	int fd = test_elf_fd(&e, len);
	struct elf_file ef;
	struct elf_program prog;
	char why[128] = "", desc[256];
	int stage = -1;
	if (elf_open_fd(&ef, fd, why, sizeof why) < 0)
		stage = 0;
	else if (elf_read_program(&ef, &prog, why, sizeof why) < 0)
		stage = 1;
	else if (elf_find_note(&ef, SECTION, OWNER, desc, sizeof desc, why, sizeof why) < 0)
		stage = 2;
	elf_release(&ef);
	close(fd);
	cr_assert_eq(stage, p->stage, "stage %d, want %d (%s)", stage, p->stage, why);
	cr_assert_str_eq(why, p->why);
}

Test(elfread_sad, poked_and_truncated)
{
	struct test_elf e;
	test_elf_build(&e, &with_note);
	uint64_t huge = 0x7fffffffffffULL;
	uint16_t many = 60000, tiny = 4, two = 2;
	uint32_t big32 = 0x10000000;
	uint64_t past = e.len + 1;
	const struct poke pokes[] = {
		{ 0, "\x7f" "ELG", 4, "not an ELF file", 0 },
		{ EI_CLASS, "\x07", 1, "unknown ELF class", 0 },
		{ EI_DATA, "\x09", 1, "unknown ELF byte order", 0 },
		{ offsetof(Elf64_Ehdr, e_phoff), &huge, 8, "program headers lie outside the file", 1 },
		{ offsetof(Elf64_Ehdr, e_phnum), &many, 2, "bad program header size or count", 1 },
		{ offsetof(Elf64_Ehdr, e_phentsize), &tiny, 2, "bad program header size or count", 1 },
		{ e.phoff + sizeof(Elf64_Phdr) + offsetof(Elf64_Phdr, p_offset), &huge, 8, "PT_INTERP has a bad size or offset", 1 },
		{ e.phoff + sizeof(Elf64_Phdr) + offsetof(Elf64_Phdr, p_filesz), &big32, 4, "PT_INTERP has a bad size or offset", 1 },
		{ e.interp_off + strlen(with_note.interp), "X", 1, "PT_INTERP is not NUL-terminated", 1 },
		{ offsetof(Elf64_Ehdr, e_shoff), &past, 8, "section headers lie outside the file", 2 },
		{ offsetof(Elf64_Ehdr, e_shnum), &many, 2, "bad section header size, count or string index", 2 },
		{ offsetof(Elf64_Ehdr, e_shstrndx), &many, 2, "bad section header size, count or string index", 2 },
		{ e.shoff + sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_offset), &huge, 8, "section name table lies outside the file", 2 },
		{ e.shoff + 2 * sizeof(Elf64_Shdr) + offsetof(Elf64_Shdr, sh_size), &huge, 8, "note section is too large or lies outside the file", 2 },
		{ e.note_off + 4, &big32, 4, "note runs past the end of its section", 2 },
		{ e.note_off, &big32, 4, "note runs past the end of its section", 2 },
	};
	for (size_t i = 0; i < sizeof pokes / sizeof pokes[0]; i++)
		expect_failure(&e, e.len, &pokes[i]);
	(void)two;

	const struct poke short_file = { 0, NULL, 0, "too short for an ELF header", 0 };
	expect_failure(&e, 10, &short_file);
	const struct poke cut_header = { 0, NULL, 0, "truncated ELF header", 0 };
	expect_failure(&e, 40, &cut_header);
}

Test(elfread_sad, not_regular)
{
	int fd = open("/tmp", O_RDONLY);
	struct elf_file ef;
	char why[128];
	cr_assert_eq(elf_open_fd(&ef, fd, why, sizeof why), -1);
	cr_assert_str_eq(why, "not a regular file");
	elf_release(&ef);
	close(fd);
}

Test(elfread_happy, machine_names)
{
	cr_assert_str_eq(elf_machine_name(EM_AARCH64), "aarch64");
	cr_assert_null(elf_machine_name(9999));
}

/* A small head: what lies beyond it (program headers, a note) is read when
 * asked for, so a loader mapped from a 1 KiB head is still told from a
 * cudaload by its note. */
Test(elfread_happy, small_head_reads_the_rest)
{
	struct test_elf e;
	struct test_elf_spec s = { .note_owner = "cudaload", .note_desc = "", .note_type = 0x434c,
				   .note_segment = true, .note_section = ".note.cudaload" };
	test_elf_build(&e, &s);
	int fd = test_elf_fd(&e, e.len);
	struct elf_file ef;
	struct elf_phdr ph[32];
	unsigned n;
	char why[128];
	unsigned char head[64];
	cr_assert_eq(elf_open_fd_head(&ef, fd, head, sizeof head, why, sizeof why), 0, "%s", why);
	cr_assert_eq(ef.head_len, 64);
	cr_assert_eq(elf_read_phdrs(&ef, ph, 32, &n, why, sizeof why), 0, "%s", why);
	cr_assert_gt(n, 0);
	cr_assert(elf_has_segment_note(&ef, ph, n, "cudaload", 0x434c));
	cr_assert(!elf_has_segment_note(&ef, ph, n, "cudaload", 1));
	elf_release(&ef);
	close(fd);
}

Test(elfread_sad, more_program_headers_than_room)
{
	int fd = open("/bin/true", O_RDONLY);
	cr_assert(fd >= 0);
	struct elf_file ef;
	struct elf_phdr ph[2];
	unsigned n;
	char why[128];
	cr_assert_eq(elf_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elf_read_phdrs(&ef, ph, 2, &n, why, sizeof why), -1);
	cr_assert_str_eq(why, "too many program headers");
	cr_assert_eq(n, 0);
	elf_release(&ef);
	close(fd);
}
