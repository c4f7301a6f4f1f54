/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>

#include "../../common/elfread.h"
#include "../../common/identity.h"
#include "../../common/ldso.h"

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
	struct test_elf_spec s = { 0 };
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
