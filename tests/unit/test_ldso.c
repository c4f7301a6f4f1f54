/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>
#include <link.h>

#include "../../common/elf/elfread.h"
#include "../../common/base/identity.h"
#include "../../common/elf/ldso.h"

Test(ldso_happy, standard_paths)
{
	cr_assert_str_eq(ldso_standard(EM_X86_64, ELFCLASS64), "/lib64/ld-linux-x86-64.so.2");
	cr_assert_str_eq(ldso_standard(EM_AARCH64, ELFCLASS64), "/lib/ld-linux-aarch64.so.1");
	cr_assert_null(ldso_standard(9999, ELFCLASS64));
}

Test(ldso_happy, minor_from_name)
{
	cr_assert_eq(ldso_minor_from_name("/lib/aarch64-linux-gnu/ld-2.31.so"), 31);
	cr_assert_eq(ldso_minor_from_name("/nix/store/abc-glibc-2.40-66/lib/ld-linux-x86-64.so.2"), 40);
	cr_assert_eq(ldso_minor_from_name("/lib64/ld-linux-x86-64.so.2"), 0);
	cr_assert_eq(ldso_minor_from_name("/opt/x2.99/ld.so"), 0);
}

Test(ldso_happy, real_glibc_loader)
{
	struct ldso_info l;
	char why[128];
	memset(&l, 0, sizeof l);
	l.path = "/lib64/ld-linux-x86-64.so.2";
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), 0, "%s", why);
	cr_assert_eq(l.fd, -1, "closed unless kept");
	cr_assert_eq(l.kind, LDSO_GLIBC);
	cr_assert_geq(l.glibc_minor, 34);
	cr_assert(l.argv0, "glibc 2.36 takes --argv0");
	cr_assert_eq(l.machine, EM_X86_64);

	l.keep = true;
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), 0, "%s", why);
	cr_assert_geq(l.fd, 0);
	cr_assert_not_null(l.ph);
	cr_assert_gt(l.n_ph, 3);
	cr_assert_eq(l.type, ET_DYN);
	ldso_release(&l);
	cr_assert_eq(l.fd, -1);
}

Test(ldso_happy, old_glibc_by_name_gets_no_argv0)
{
	char *dir = scratch_dir();
	struct test_elf e;
	struct test_elf_spec s = { .loader = true };
	test_elf_build(&e, &s);
	put_file(dir, "/ld-2.31.so", e.buf, e.len);
	char link[4200];
	snprintf(link, sizeof link, "%s/ld-2.31.so", dir);
	chmod(link, 0755);
	snprintf(link, sizeof link, "%s/ld-linux-aarch64.so.1", dir);
	cr_assert_eq(symlink("ld-2.31.so", link), 0);
	struct ldso_info l;
	char why[128];
	memset(&l, 0, sizeof l);
	l.path = link;
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), 0, "%s", why);
	cr_assert_eq(l.kind, LDSO_GLIBC);
	cr_assert_eq(l.glibc_minor, 31);
	cr_assert(!l.argv0, "glibc 2.31 would take --argv0 for the program");
	rm_rf(dir);
	free(dir);
}

/* What a loader takes, settled again from what its file once said
 * (prepared.h keeps it): as ldso_inspect settles it, or not at all where it
 * would read the file. */
Test(ldso_happy, settled_from_what_the_file_said)
{
	struct ldso_info l;
	memset(&l, 0, sizeof l);
	l.path = "/lib64/ld-linux-x86-64.so.2";
	cr_assert(!ldso_settle_known(&l, '-', 0), "nothing read, no floor: the file must be read");
	cr_assert(ldso_settle_known(&l, 'g', 31));
	cr_assert(l.kind == LDSO_GLIBC && l.glibc_minor == 31 && !l.argv0);
	memset(&l, 0, sizeof l);
	l.path = "/lib64/ld-linux-x86-64.so.2";
	cr_assert(ldso_settle_known(&l, 'g', 36));
	cr_assert(l.argv0);
	memset(&l, 0, sizeof l);
	l.path = "/lib64/ld-linux-x86-64.so.2";
	l.glibc_floor = 34;
	cr_assert(ldso_settle_known(&l, '-', 0), "the program's glibc says enough");
	cr_assert(l.kind == LDSO_GLIBC && l.glibc_minor == 34 && l.argv0);
	memset(&l, 0, sizeof l);
	l.path = "/lib/ld-musl-aarch64.so.1";
	cr_assert(ldso_settle_known(&l, '-', 0), "musl by its name");
	cr_assert(l.kind == LDSO_MUSL && l.argv0);
	memset(&l, 0, sizeof l);
	l.path = "/opt/ld.so";
	cr_assert(ldso_settle_known(&l, 'm', 0));
	cr_assert(l.kind == LDSO_MUSL && l.argv0);
	memset(&l, 0, sizeof l);
	l.path = "/opt/ld.so";
	cr_assert(ldso_settle_known(&l, 'u', 0), "read, and neither: no --argv0");
	cr_assert(l.kind == LDSO_UNKNOWN && !l.argv0);

	/* what ldso_inspect read is what settles it again */
	memset(&l, 0, sizeof l);
	l.path = "/lib64/ld-linux-x86-64.so.2";
	char why[128];
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), 0, "%s", why);
	cr_assert_eq(l.file_kind, 'g');
	struct ldso_info again;
	memset(&again, 0, sizeof again);
	again.path = l.path;
	cr_assert(ldso_settle_known(&again, l.file_kind, l.glibc_minor));
	cr_assert(again.kind == l.kind && again.glibc_minor == l.glibc_minor && again.argv0 == l.argv0);
}

Test(ldso_sad, missing_self_and_garbage)
{
	char lpath[4200];
	struct ldso_info l;
	char why[128];
	memset(&l, 0, sizeof l);
	l.path = "/nonexistent/ld.so";
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), -ENOENT);
	cr_assert_str_eq(why, "No such file or directory");

	char *dir = scratch_dir();
	/* any cudaload, found by its identity note: a copy would loop too */
	struct test_elf cl;
	struct test_elf_spec cls = { .note_owner = IDENTITY_NOTE_OWNER, .note_desc = "",
				     .note_type = IDENTITY_NOTE_TYPE, .note_segment = true,
				     .note_section = ".note.cudaload" };
	test_elf_build(&cl, &cls);
	put_file(dir, "/cudaload-copy", cl.buf, cl.len);
	snprintf(lpath, sizeof lpath, "%s/cudaload-copy", dir);
	l.path = lpath;
	chmod(lpath, 0755);
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), -ELOOP);
	cr_assert_str_eq(why, "is cudaload itself, not a dynamic loader");
	l.keep = true;	/* read for mapping, from a smaller head: the same */
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), -ELOOP);
	cr_assert_eq(l.fd, -1);
	l.keep = false;
	cls.note_type = 1;	/* the owner alone is not enough */
	cls.loader = true;
	test_elf_build(&cl, &cls);
	put_file(dir, "/other", cl.buf, cl.len);
	snprintf(lpath, sizeof lpath, "%s/other", dir);
	l.path = lpath;
	chmod(lpath, 0755);
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), 0);

	put_text(dir, "/ld.so", "#!/bin/sh\n");
	snprintf(lpath, sizeof lpath, "%s/ld.so", dir);
	l.path = lpath;
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), -ENOEXEC);
	cr_assert_str_eq(why, "not an ELF file");
	struct test_elf e;
	struct test_elf_spec spec = { 0 };
	test_elf_build(&e, &spec);
	put_file(dir, "/ld-noexec.so", e.buf, e.len);
	snprintf(lpath, sizeof lpath, "%s/ld-noexec.so", dir);
	l.path = lpath;
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), -EACCES);
	cr_assert_str_eq(why, "not executable");
	l.path = dir;
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), -ENOEXEC);
	rm_rf(dir);
	free(dir);
}

/* A typo in ldso.<machine> must not be run as the loader:
 * every file that is not shaped like one is refused with its reason. */
static void expect_refused(const char *path, const char *reason)
{
	struct ldso_info l;
	char why[160];
	for (int keep = 0; keep < 2; keep++) {	/* exec reads the usual head, chain 1 KiB */
		memset(&l, 0, sizeof l);
		l.path = path;
		l.keep = keep;
		l.named = true;
		cr_assert_eq(ldso_inspect(&l, why, sizeof why), -ENOEXEC, "%s taken for a loader", path);
		cr_assert(strstr(why, reason), "%s: %s", path, why);
		cr_assert_eq(l.fd, -1);
	}
}

static void shaped(const char *dir, const char *name, const struct test_elf_spec *s,
		   uint64_t entry, char *path, size_t cap)
{
	struct test_elf e;
	test_elf_build(&e, s);
	if (entry != UINT64_MAX)
		((Elf64_Ehdr *)e.buf)->e_entry = entry;
	put_file(dir, name, e.buf, e.len);
	snprintf(path, cap, "%s%s", dir, name);
	chmod(path, 0755);
}

static int find_libc(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	if (strstr(info->dlpi_name, "/libc.so.6"))
		snprintf(data, 4096, "%s", info->dlpi_name);
	return 0;
}

Test(ldso_sad, not_a_loader_by_shape)
{
	char *dir = scratch_dir();
	char p[4200];
	shaped(dir, "/ld-ok.so", &(struct test_elf_spec){ .loader = true }, UINT64_MAX, p, sizeof p);
	struct ldso_info l;
	char why[160];
	memset(&l, 0, sizeof l);
	l.path = p;
	cr_assert_eq(ldso_inspect(&l, why, sizeof why), 0, "%s", why);

	shaped(dir, "/interp", &(struct test_elf_spec){ .loader = true, .interp = "/lib/ld.so" },
	       UINT64_MAX, p, sizeof p);
	expect_refused(p, "(PT_INTERP)");
	shaped(dir, "/exec", &(struct test_elf_spec){ .loader = true, .type = ET_EXEC }, UINT64_MAX, p, sizeof p);
	expect_refused(p, "not a shared object (ET_DYN)");
	shaped(dir, "/nodyn", &(struct test_elf_spec){ 0 }, UINT64_MAX, p, sizeof p);
	expect_refused(p, "no dynamic section");
	shaped(dir, "/noentry", &(struct test_elf_spec){ .loader = true }, 0, p, sizeof p);
	expect_refused(p, "no entry point");
	shaped(dir, "/outside", &(struct test_elf_spec){ .loader = true }, 1 << 20, p, sizeof p);
	expect_refused(p, "no entry point");
	shaped(dir, "/needs", &(struct test_elf_spec){ .loader = true, .dyn_needed = true }, UINT64_MAX, p, sizeof p);
	expect_refused(p, "(DT_NEEDED)");
	shaped(dir, "/pie", &(struct test_elf_spec){ .loader = true, .dyn_flags_1 = DF_1_PIE | DF_1_NOW },
	       UINT64_MAX, p, sizeof p);
	expect_refused(p, "(DF_1_PIE)");

	/* a dynamic section past the end of the file */
	struct test_elf e;
	test_elf_build(&e, &(struct test_elf_spec){ .loader = true });
	Elf64_Phdr *ph = (Elf64_Phdr *)(e.buf + e.phoff);
	ph[1].p_offset = e.len - 8;
	put_file(dir, "/cut", e.buf, e.len);
	snprintf(p, sizeof p, "%s/cut", dir);
	chmod(p, 0755);
	expect_refused(p, "unreadable dynamic section");

	/* the real typos: a program, a shell, the C library */
	expect_refused("/bin/sh", "(PT_INTERP)");
	char libc[4096] = "";
	dl_iterate_phdr(find_libc, libc);
	cr_assert(libc[0], "this test runs linked against glibc");
	expect_refused(libc, "(PT_INTERP)");	/* glibc's libc.so.6 runs as a program */
	rm_rf(dir);
	free(dir);
}
