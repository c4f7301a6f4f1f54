/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/elf/elfread.h"
#include "../../common/packages/notejson.h"
#include "../../common/elf/record.h"

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
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0, "%s", why);
	cr_assert_eq(ef.cls, ELFCLASS64);
	cr_assert_eq(ef.machine, EM_X86_64);
	cr_assert_eq(elfread_read_program(&ef, &prog, why, sizeof why), 0, "%s", why);
	cr_assert(prog.has_interp);
	cr_assert_str_eq(prog.interp, "/lib64/ld-linux-x86-64.so.2");
	cr_assert_str_eq(prog.recorded, "");
	long n = elfread_find_note(&ef, SECTION, OWNER, desc, sizeof desc, NULL, why, sizeof why);
	cr_assert_eq(n, (long)strlen(with_note.note_desc));
	cr_assert_str_eq(desc, with_note.note_desc);
	cr_assert_eq(elfread_find_note(&ef, SECTION, "Someone Else", desc, sizeof desc, NULL, why, sizeof why), 0);
	cr_assert_eq(elfread_find_note(&ef, ".note.other", OWNER, desc, sizeof desc, NULL, why, sizeof why), 0);
	elfread_release(&ef);
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
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elfread_read_program(&ef, &prog, why, sizeof why), 0, "%s", why);
	cr_assert_str_eq(prog.interp, "/usr/bin/cudaload");
	cr_assert_str_eq(prog.recorded, "/nix/store/abc-glibc-2.40/lib/ld-linux-x86-64.so.2");
	elfread_release(&ef);
	close(fd);
}

Test(elfread_happy, real_loader_and_program)
{
	int fd = open("/bin/true", O_RDONLY);
	cr_assert(fd >= 0);
	struct elf_file ef;
	struct elf_program prog;
	char why[128];
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elfread_read_program(&ef, &prog, why, sizeof why), 0);
	cr_assert(prog.has_interp);
	elfread_release(&ef);
	close(fd);

	fd = open(prog.interp, O_RDONLY);
	cr_assert(fd >= 0);
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elfread_read_program(&ef, &prog, why, sizeof why), 0);
	cr_assert_geq(elfread_glibc_minor(&ef, prog.ph, prog.n), 34, "Debian 12's ld.so defines GLIBC_2.34+");
	elfread_release(&ef);
	close(fd);
}

Test(elfread_sad, split_interp)
{
	char i[64], r[64];
	cr_assert_eq(elfread_split_interp("abc", 3, i, sizeof i, r, sizeof r), -1);
	cr_assert_eq(elfread_split_interp("abc\0" RECORD_MAGIC "/x", 4 + sizeof RECORD_MAGIC - 1 + 2, i, sizeof i, r, sizeof r), 0);
	cr_assert_str_eq(r, "", "a record without its NUL is ignored");
	cr_assert_eq(elfread_split_interp("abc\0other", 10, i, sizeof i, r, sizeof r), 0);
	cr_assert_str_eq(r, "");
	cr_assert_eq(elfread_split_interp("abcdef\0", 7, i, 4, r, sizeof r), -1);
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
	if (elfread_open_fd(&ef, fd, why, sizeof why) < 0)
		stage = 0;
	else if (elfread_read_program(&ef, &prog, why, sizeof why) < 0)
		stage = 1;
	else if (elfread_find_note(&ef, SECTION, OWNER, desc, sizeof desc, NULL, why, sizeof why) < 0)
		stage = 2;
	elfread_release(&ef);
	close(fd);
	cr_assert_eq(stage, p->stage, "stage %d, want %d (%s)", stage, p->stage, why);
	cr_assert_str_eq(why, p->why);
}

Test(elfread_sad, poked_and_truncated)
{
	struct test_elf e;
	test_elf_build(&e, &with_note);
	uint64_t huge = 0x7fffffffffffULL;
	uint16_t many = 60000, tiny = 4, two = 2, wide = 0xffff;
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
		/* 4096 of them would be 256 MiB to read on a sparse file */
		{ offsetof(Elf64_Ehdr, e_shentsize), &wide, 2, "bad section header size, count or string index", 2 },
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
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), -1);
	cr_assert_str_eq(why, "not a regular file");
	elfread_release(&ef);
	close(fd);
}

Test(elfread_happy, machine_names)
{
	cr_assert_str_eq(elfread_machine_name(EM_AARCH64), "aarch64");
	cr_assert_null(elfread_machine_name(9999));
	char a[24], b[24];
	const char *x = elfread_machine_label(9999, a, sizeof a), *y = elfread_machine_label(9998, b, sizeof b);
	cr_assert_str_eq(x, "machine 9999");
	cr_assert_str_eq(y, "machine 9998", "two in one message stay two");
	cr_assert_str_eq(elfread_machine_label(EM_X86_64, a, sizeof a), "x86_64");
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
	cr_assert_eq(elfread_open_fd_head(&ef, fd, head, sizeof head, why, sizeof why), 0, "%s", why);
	cr_assert_eq(ef.head_len, 64);
	cr_assert_eq(elfread_read_phdrs(&ef, ph, 32, &n, why, sizeof why), 0, "%s", why);
	cr_assert_gt(n, 0);
	cr_assert(elfread_has_segment_note(&ef, ph, n, "cudaload", 0x434c));
	cr_assert(!elfread_has_segment_note(&ef, ph, n, "cudaload", 1));
	elfread_release(&ef);
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
	cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0);
	cr_assert_eq(elfread_read_phdrs(&ef, ph, 2, &n, why, sizeof why), -1);
	cr_assert_str_eq(why, "too many program headers");
	cr_assert_eq(n, 0);
	elfread_release(&ef);
	close(fd);
}

/* A file of len bytes with .shstrtab, a note and the section header table
 * (null, .shstrtab, note) at the offsets given, and nothing else: the
 * layouts that elfread_find_note reads in one go or not. */
static int layout_fd(size_t len, size_t strs_off, size_t note_off, size_t shoff)
{
	unsigned char *buf = calloc(1, len);
	cr_assert(buf != NULL);
	static const char strs[] = "\0.shstrtab\0" SECTION;
	static const char desc[] = "{\"format\":1,\"CUDA version\":\"12.9\"}";
	uint32_t nh[3] = { sizeof OWNER, sizeof desc - 1, 1 };
	memcpy(buf + note_off, nh, 12);
	memcpy(buf + note_off + 12, OWNER, sizeof OWNER);
	size_t desc_off = note_off + 12 + ((sizeof OWNER + 3) & ~(size_t)3);
	memcpy(buf + desc_off, desc, sizeof desc - 1);
	size_t note_len = desc_off + ((sizeof desc - 1 + 3) & ~(size_t)3) - note_off;
	memcpy(buf + strs_off, strs, sizeof strs);
	Elf64_Shdr sh[3] = { 0 };
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = strs_off, .sh_size = sizeof strs };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_NOTE, .sh_offset = note_off, .sh_size = note_len };
	memcpy(buf + shoff, sh, sizeof sh);
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_AARCH64;
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 1;
	memcpy(buf, &eh, sizeof eh);
	char path[] = "/tmp/cudaload-elf-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	unlink(path);
	cr_assert(write(fd, buf, len) == (ssize_t)len);
	free(buf);
	return fd;
}

/* libcuda is tens of MB with the section headers at its end: they, and
 * .shstrtab and a note just before them, come in one read; whatever lies
 * elsewhere is read on its own, with the same answer. */
Test(elfread_happy, note_wherever_it_lies)
{
	static const struct {
		size_t len, strs, note, shoff;
		const char *layout;
	} cases[] = {
		{ 40000, 39500, 39000, 39700, "note and names just before the table" },
		{ 40000, 39600, 100, 39700, "the note near the start" },
		{ 40000, 200, 100, 39700, "both far from the table" },
		{ 40000, 39600, 30000, 39700, "the note in the middle" },
		{ 1600, 1200, 1000, 1300, "a table less than a window from the start" },
		{ 40000, 39900, 39500, 39700, "names after the table" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int fd = layout_fd(cases[i].len, cases[i].strs, cases[i].note, cases[i].shoff);
		struct elf_file ef;
		unsigned char head[64];
		char why[128] = "", desc[64];
		cr_assert_eq(elfread_open_fd_head(&ef, fd, head, sizeof head, why, sizeof why), 0, "%s", why);
		long n = elfread_find_note(&ef, SECTION, OWNER, desc, sizeof desc, NULL, why, sizeof why);
		cr_assert_eq(n, 34, "%s: %ld (%s)", cases[i].layout, n, why);
		cr_assert_str_eq(desc, "{\"format\":1,\"CUDA version\":\"12.9\"}", "%s", cases[i].layout);
		cr_assert_eq(elfread_find_note(&ef, ".note.other", OWNER, desc, sizeof desc, NULL, why, sizeof why), 0);
		elfread_release(&ef);
		close(fd);
	}
}

/* The same bounds on the far side of the window. */
Test(elfread_sad, window_bounds)
{
	struct elf_file ef;
	unsigned char head[64];
	char why[128] = "", desc[64];
	/* the table runs past the end of the file */
	int fd = layout_fd(40000, 39500, 39000, 39700);
	cr_assert_eq(elfread_open_fd_head(&ef, fd, head, sizeof head, why, sizeof why), 0);
	ef.size = 39700 + 2 * sizeof(Elf64_Shdr);	/* as if cut inside the table */
	cr_assert_eq(elfread_find_note(&ef, SECTION, OWNER, desc, sizeof desc, NULL, why, sizeof why), -1);
	cr_assert_str_eq(why, "section headers lie outside the file");
	/* a note section that runs past the end */
	ef.size = 40000;
	cr_assert_eq(ftruncate(fd, 39700 + 3 * sizeof(Elf64_Shdr)), 0);
	Elf64_Shdr sh;
	cr_assert(pread(fd, &sh, sizeof sh, 39700 + 2 * sizeof sh) == sizeof sh);
	sh.sh_size = 100000;
	cr_assert(pwrite(fd, &sh, sizeof sh, 39700 + 2 * sizeof sh) == sizeof sh);
	cr_assert_eq(elfread_find_note(&ef, SECTION, OWNER, desc, sizeof desc, NULL, why, sizeof why), -1);
	cr_assert_str_eq(why, "note section is too large or lies outside the file");
	elfread_release(&ef);
	close(fd);
}

/* An empty section right at the end of the head or of the window is not a
 * buffer to free (found by fuzzing a 64-byte head). */
Test(elfread_sad, empty_section_at_the_end_of_what_was_read)
{
	static const struct {
		size_t len, strs, note, shoff;
	} cases[] = {
		{ 40000, 39500, 64, 39700 },		/* the note where the head ends */
		{ 40000, 39600, 39700 + 3 * sizeof(Elf64_Shdr), 39700 },	/* where the window ends */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int fd = layout_fd(cases[i].len, cases[i].strs, cases[i].note < 39000 ? 30000 : cases[i].note - 200, cases[i].shoff);
		/* point the note section at an empty stretch there */
		Elf64_Shdr sh;
		cr_assert(pread(fd, &sh, sizeof sh, (off_t)(cases[i].shoff + 2 * sizeof sh)) == sizeof sh);
		sh.sh_offset = cases[i].note;
		sh.sh_size = 0;
		cr_assert(pwrite(fd, &sh, sizeof sh, (off_t)(cases[i].shoff + 2 * sizeof sh)) == sizeof sh);
		struct elf_file ef;
		unsigned char head[64];
		char why[128] = "", desc[64];
		cr_assert_eq(elfread_open_fd_head(&ef, fd, head, sizeof head, why, sizeof why), 0, "%s", why);
		cr_assert_eq(elfread_find_note(&ef, SECTION, OWNER, desc, sizeof desc, NULL, why, sizeof why), 0, "%s", why);
		elfread_release(&ef);
		close(fd);
	}
}

/* An ELF64 file whose note section holds exactly these bytes, aligned to
 * align: the shapes the section headers say, whatever the sizes inside. */
static int section_fd(const void *sec, size_t len, unsigned align)
{
	static const char strs[] = "\0.shstrtab\0" SECTION;
	unsigned char buf[1024] = { 0 };
	size_t note_off = 256, strs_off = 512, shoff = 640;
	cr_assert_leq(len, strs_off - note_off);
	memcpy(buf + note_off, sec, len);
	memcpy(buf + strs_off, strs, sizeof strs);
	Elf64_Shdr sh[3] = { 0 };
	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_STRTAB, .sh_offset = strs_off, .sh_size = sizeof strs };
	sh[2] = (Elf64_Shdr){ .sh_name = 11, .sh_type = SHT_NOTE, .sh_offset = note_off, .sh_size = len,
			      .sh_addralign = align };
	memcpy(buf + shoff, sh, sizeof sh);
	Elf64_Ehdr eh = { 0 };
	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_type = ET_DYN;
	eh.e_machine = EM_AARCH64;
	eh.e_shoff = shoff;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 3;
	eh.e_shstrndx = 1;
	memcpy(buf, &eh, sizeof eh);
	char path[] = "/tmp/cudaload-elf-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	unlink(path);
	cr_assert(write(fd, buf, shoff + sizeof sh) == (ssize_t)(shoff + sizeof sh));
	return fd;
}

/* A note as NVIDIA ships them: owner "NVIDIA Corporation" (namesz 19,
 * padded to 20), n_type 0, the descriptor's text then NULs to size bytes
 * in all, descsz as given whatever the text's length.  Its length. */
static size_t shipped_note(unsigned char *sec, const char *owner, const char *text,
			   uint32_t descsz, size_t size)
{
	uint32_t namesz = (uint32_t)strlen(owner) + 1;
	uint32_t nh[3] = { namesz, descsz, 0 };
	size_t at = 12 + ((namesz + 3) & ~(size_t)3);
	memset(sec, 0, size);
	memcpy(sec, nh, 12);
	memcpy(sec + 12, owner, namesz);
	cr_assert_leq(at + strlen(text), size);
	memcpy(sec + at, text, strlen(text));
	return size;
}

/* The read note: its length, how far it ran past, the reason when refused. */
static long read_shaped(const unsigned char *sec, size_t len, unsigned align, char *desc,
			size_t cap, unsigned *past, char *why)
{
	int fd = section_fd(sec, len, align);
	struct elf_file ef;
	unsigned char head[64];
	why[0] = '\0';
	*past = 99;
	cr_assert_eq(elfread_open_fd_head(&ef, fd, head, sizeof head, why, 128), 0, "%s", why);
	long n = elfread_find_note(&ef, SECTION, OWNER, desc, cap, past, why, 128);
	elfread_release(&ef);
	close(fd);
	return n;
}

/* NVIDIA's Orin CUDA 13.2 libcuda, as the container toolkit's test data
 * holds it (commit 1a09d4a1): descsz 41 in a 71-byte section aligned to 4,
 * 2 bytes past its end, the text followed by NULs.  Read cut to the
 * section, as the toolkit reads it; the same in a section aligned to 8
 * (the descriptor starts at 32 either way). */
Test(elfread_happy, orin_13_2_note_as_shipped)
{
	static const char *texts[] = { "{\"format\":1,\"CUDA version\":\"13.2\"}",
				       "{\"format\":1,\"CUDA version\":\"13.2\",}" };
	for (size_t i = 0; i < 2; i++)
		for (unsigned align = 4; align <= 8; align += 4) {
			unsigned char sec[71];
			char desc[128], why[128];
			unsigned past;
			shipped_note(sec, OWNER, texts[i], 41, sizeof sec);
			long n = read_shaped(sec, sizeof sec, align, desc, sizeof desc, &past, why);
			cr_assert_eq(n, 39, "%s, align %u: %ld (%s)", texts[i], align, n, why);
			cr_assert_eq(past, 2);
			cr_assert_str_eq(desc, texts[i]);
			struct compat_note note;
			cr_assert_eq(notejson_parse(desc, (size_t)n, &note, why, sizeof why), 0, "%s", why);
			cr_assert_eq(note.cuda, 13020);
			cr_assert_eq(note.trailing_comma, i == 1);
		}
	/* one byte short, and a whole note: *past says so */
	unsigned char sec[71];
	char desc[128], why[128];
	unsigned past;
	shipped_note(sec, OWNER, texts[0], 40, sizeof sec);
	cr_assert_eq(read_shaped(sec, sizeof sec, 4, desc, sizeof desc, &past, why), 39, "%s", why);
	cr_assert_eq(past, 1);
	shipped_note(sec, OWNER, texts[0], 39, sizeof sec);
	cr_assert_eq(read_shaped(sec, sizeof sec, 4, desc, sizeof desc, &past, why), 39, "%s", why);
	cr_assert_eq(past, 0);
	/* a small buffer gets the start, the length stays the section's */
	shipped_note(sec, OWNER, texts[0], 41, sizeof sec);
	cr_assert_eq(read_shaped(sec, sizeof sec, 4, desc, 8, &past, why), 39, "%s", why);
	cr_assert_str_eq(desc, "{\"forma");
}

/* What is truly damaged is still refused: a descriptor 4 or more bytes
 * short (text could be missing), one whose bytes in the section do not end
 * in a NUL (its text runs on past the section) or hold nothing but NULs, a
 * name that runs past, another owner's note cut short. */
Test(elfread_sad, cut_notes_still_refused)
{
	static const char json[] = "{\"format\":1,\"CUDA version\":\"13.2\"}";
	static const struct {
		const char *owner, *text;
		uint32_t descsz;
		size_t size;
		const char *what;
	} cases[] = {
		{ OWNER, json, 43, 71, "4 bytes short" },
		{ OWNER, json, 0x10000000, 71, "far past" },
		{ OWNER, "{\"format\":1,\"CUDA version\":\"13.2\"}     ", 41, 71, "blanks to the last byte" },
		{ OWNER, json, 36, 66, "text to the last byte" },
		{ OWNER, "", 41, 71, "nothing but NULs" },
		{ OWNER, "", 2, 32, "nothing at all" },
		{ "Someone Else", json, 43, 69, "another owner's" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned char sec[128];
		char desc[128], why[128];
		unsigned past;
		shipped_note(sec, cases[i].owner, cases[i].text, cases[i].descsz, cases[i].size);
		long n = read_shaped(sec, cases[i].size, 4, desc, sizeof desc, &past, why);
		cr_assert_eq(n, -1, "%s: read (%ld)", cases[i].what, n);
		cr_assert_str_eq(why, "note runs past the end of its section", "%s", cases[i].what);
	}
	/* a name that runs past its section: header and 12 of its 19 bytes */
	unsigned char sec[71];
	char desc[128], why[128];
	unsigned past;
	shipped_note(sec, OWNER, json, 41, sizeof sec);
	cr_assert_eq(read_shaped(sec, 24, 4, desc, sizeof desc, &past, why), -1);
	cr_assert_str_eq(why, "note runs past the end of its section");
}

/* A file in the other byte order (a big-endian PowerPC or MIPS program in
 * an image): every field read swapped, in both classes. */
static int other_order_fd(int cls)
{
	bool host_big = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
	unsigned char buf[256] = { 0 };
	memcpy(buf, ELFMAG, SELFMAG);
	buf[EI_CLASS] = (unsigned char)cls;
	buf[EI_DATA] = host_big ? ELFDATA2LSB : ELFDATA2MSB;
	buf[EI_VERSION] = EV_CURRENT;
	uint16_t h16[] = { ET_EXEC, EM_PPC64 };
	for (int i = 0; i < 2; i++) {
		uint16_t v = __builtin_bswap16(h16[i]);
		memcpy(buf + 16 + 2 * i, &v, 2);
	}
	bool b64 = cls == ELFCLASS64;
	size_t phoff = b64 ? 64 : 52, phent = b64 ? 56 : 32;
	uint16_t phentsize = __builtin_bswap16((uint16_t)phent), phnum = __builtin_bswap16(1);
	memcpy(buf + (b64 ? 54 : 42), &phentsize, 2);
	memcpy(buf + (b64 ? 56 : 44), &phnum, 2);
	if (b64) {
		uint64_t entry = __builtin_bswap64(0x10000123), off = __builtin_bswap64(phoff);
		memcpy(buf + 24, &entry, 8);
		memcpy(buf + 32, &off, 8);
		uint32_t type = __builtin_bswap32(PT_LOAD), flags = __builtin_bswap32(PF_R | PF_X);
		uint64_t f[] = { 0, 0x10000000, 0x10000000, 0x1234, 0x5678, 0x10000 };
		memcpy(buf + phoff, &type, 4);
		memcpy(buf + phoff + 4, &flags, 4);
		for (int i = 0; i < 6; i++) {
			uint64_t v = __builtin_bswap64(f[i]);
			memcpy(buf + phoff + 8 + 8 * i, &v, 8);
		}
	} else {
		uint32_t entry = __builtin_bswap32(0x10000123), off = __builtin_bswap32((uint32_t)phoff);
		memcpy(buf + 24, &entry, 4);
		memcpy(buf + 28, &off, 4);
		uint32_t f[] = { PT_LOAD, 0, 0x10000000, 0x10000000, 0x1234, 0x5678, PF_R | PF_X, 0x10000 };
		for (int i = 0; i < 8; i++) {
			uint32_t v = __builtin_bswap32(f[i]);
			memcpy(buf + phoff + 4 * i, &v, 4);
		}
	}
	char path[] = "/tmp/cudaload-elf-XXXXXX";
	int fd = mkstemp(path);
	cr_assert(fd >= 0);
	unlink(path);
	cr_assert(write(fd, buf, sizeof buf) == (ssize_t)sizeof buf);
	return fd;
}

Test(elfread_happy, the_other_byte_order)
{
	int classes[] = { ELFCLASS64, ELFCLASS32 };
	for (int k = 0; k < 2; k++) {
		int fd = other_order_fd(classes[k]);
		struct elf_file ef;
		struct elf_phdr ph[4];
		unsigned n;
		char why[128];
		cr_assert_eq(elfread_open_fd(&ef, fd, why, sizeof why), 0, "%s", why);
		cr_assert_eq(ef.machine, EM_PPC64, "class %d", classes[k]);
		cr_assert_eq(ef.type, ET_EXEC);
		cr_assert_eq(ef.entry, 0x10000123);
		cr_assert_eq(elfread_read_phdrs(&ef, ph, 4, &n, why, sizeof why), 0, "%s", why);
		cr_assert_eq(n, 1);
		cr_assert(ph[0].type == PT_LOAD && ph[0].flags == (PF_R | PF_X) && ph[0].offset == 0 &&
			  ph[0].vaddr == 0x10000000 && ph[0].filesz == 0x1234 && ph[0].memsz == 0x5678 &&
			  ph[0].align == 0x10000, "class %d: fields swapped back", classes[k]);
		elfread_release(&ef);
		close(fd);
	}
}
