/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "../../common/elf/record.h"
#include "../../common/elf/target.h"

Test(target_happy, path_search)
{
	char out[4096];
	cr_assert_eq(target_search_path("true", "/nonexistent:/bin", out, sizeof out), 0);
	cr_assert_str_eq(out, "/bin/true");
	cr_assert_eq(target_search_path("./x", "/bin", out, sizeof out), 0);
	cr_assert_str_eq(out, "./x");
}

Test(target_sad, path_search)
{
	char out[4096];
	cr_assert_eq(target_search_path("no-such-program-here", "/bin:/usr/bin", out, sizeof out), -ENOENT);
	cr_assert_eq(target_search_path("", "/bin", out, sizeof out), -ENOENT);
	char *dir = scratch_dir();
	put_text(dir, "/tool", "x");	/* not executable */
	cr_assert_eq(target_search_path("tool", dir, out, sizeof out), -EACCES);
	char big[5000];
	memset(big, 'a', sizeof big - 1);
	big[0] = '/';
	big[sizeof big - 1] = '\0';
	cr_assert_eq(target_search_path(big, "/bin", out, sizeof out), -ENAMETOOLONG);
	rm_rf(dir);
	free(dir);
}

Test(target_happy, elf_program)
{
	char *argv[] = { "/bin/true", "x", NULL };
	struct target t;
	char why[128];
	cr_assert_eq(target_from_command(&t, 2, argv, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_str_eq(t.path, "/bin/true");
	cr_assert(t.has_interp);
	cr_assert_eq(t.machine, EM_X86_64);
	cr_assert_eq(t.argv, argv);
	target_free(&t);
}

/* What the kernel grants a program only when it runs it:
 * set-id bits that change this process's ids, file capabilities. */
Test(target_happy, privileges)
{
	char *dir = scratch_dir(), path[4200], why[128];
	snprintf(path, sizeof path, "%s/prog", dir);
	int in = open("/bin/true", O_RDONLY), out = open(path, O_WRONLY | O_CREAT, 0755);
	char buf[65536];
	for (ssize_t n; in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0;)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	if (geteuid() != 0) {
		rm_rf(dir);
		free(dir);
		cr_skip_test("needs root, to give the file away");
	}
	char *argv[] = { path, NULL };
	struct target t;
	cr_assert_eq(target_from_command(&t, 1, argv, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_eq(t.privileged, 0);
	target_free(&t);
	cr_assert_eq(chmod(path, 04755), 0);	/* set-user-ID to its owner: us */
	cr_assert_eq(target_from_command(&t, 1, argv, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_eq(t.privileged, 0, "set-user-ID to our own id changes nothing");
	target_free(&t);
	cr_assert_eq(chown(path, 1, 1), 0);
	cr_assert_eq(chmod(path, 02744), 0);	/* set-group-ID without group execute: not set-id */
	cr_assert_eq(target_from_command(&t, 1, argv, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_eq(t.privileged, 0);
	target_free(&t);
	cr_assert_eq(chmod(path, 02755), 0);
	cr_assert_eq(target_from_command(&t, 1, argv, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_eq(t.privileged, TARGET_SET_ID);
	target_free(&t);
	cr_assert_eq(chmod(path, 0755), 0);
	/* cap_net_raw+ep as setcap writes it: VFS_CAP_REVISION_2 with the
	 * effective flag, permitted bit 13 */
	const unsigned char caps[20] = { 0x01, 0, 0, 0x02, 0x00, 0x20 };
	if (setxattr(path, "security.capability", caps, sizeof caps, 0) != 0) {
		rm_rf(dir);
		free(dir);
		cr_skip_test("cannot set file capabilities here: %s", strerror(errno));
	}
	cr_assert_eq(target_from_command(&t, 1, argv, NULL, why, sizeof why), 0, "%s", why);
	cr_assert_eq(t.privileged, TARGET_FILE_CAPS);
	target_free(&t);
	rm_rf(dir);
	free(dir);
}

Test(target_happy, scripts_and_nesting)
{
	char *dir = scratch_dir();
	char text[4200];
	snprintf(text, sizeof text, "#! /bin/true  -e -x \n echo\n");
	put_text(dir, "/s1", text);
	snprintf(text, sizeof text, "#!%s/s1\n", dir);
	put_text(dir, "/s2", text);
	char s1[4200], s2[4200];
	snprintf(s1, sizeof s1, "%s/s1", dir);
	snprintf(s2, sizeof s2, "%s/s2", dir);
	chmod(s1, 0755);
	chmod(s2, 0755);

	char *argv[] = { s2, "arg", NULL };
	struct target t;
	char why[128];
	cr_assert_eq(target_from_command(&t, 2, argv, NULL, why, sizeof why), 0, "%s", why);
	/* s2 -> "s1 s2 arg" -> "/bin/true '-e -x' s1 s2 arg", as the kernel does */
	cr_assert_str_eq(t.path, "/bin/true");
	cr_assert_eq(t.argc, 5);
	cr_assert_str_eq(t.argv[0], "/bin/true");
	cr_assert_str_eq(t.argv[1], "-e -x");
	cr_assert_str_eq(t.argv[2], s1);
	cr_assert_str_eq(t.argv[3], s2);
	cr_assert_str_eq(t.argv[4], "arg");
	target_free(&t);
	rm_rf(dir);
	free(dir);
}

Test(target_sad, bad_programs)
{
	char *dir = scratch_dir();
	char p[4200], why[128];
	struct target t;

	snprintf(p, sizeof p, "%s/loop", dir);
	char text[4300];
	snprintf(text, sizeof text, "#!%s\n", p);
	put_text(dir, "/loop", text);
	chmod(p, 0755);
	char *a1[] = { p, NULL };
	cr_assert_eq(target_from_command(&t, 1, a1, NULL, why, sizeof why), -ELOOP);
	cr_assert_str_eq(why, "too many levels of #! interpreters");
	target_free(&t);

	put_text(dir, "/empty", "#!\n");
	snprintf(p, sizeof p, "%s/empty", dir);
	chmod(p, 0755);
	char *a2[] = { p, NULL };
	cr_assert_eq(target_from_command(&t, 1, a2, NULL, why, sizeof why), -ENOEXEC);
	cr_assert_str_eq(why, "bad #! line");

	put_text(dir, "/data", "\x7f" "ELF short");
	snprintf(p, sizeof p, "%s/data", dir);
	chmod(p, 0755);
	char *a3[] = { p, NULL };
	cr_assert_eq(target_from_command(&t, 1, a3, NULL, why, sizeof why), -ENOEXEC);
	cr_assert(strncmp(why, "cannot execute: ", 16) == 0, "%s", why);

	char *a4[] = { dir, NULL };
	cr_assert_eq(target_from_command(&t, 1, a4, NULL, why, sizeof why), -EACCES);
	char *a5[] = { "/nonexistent/x", NULL };
	cr_assert_eq(target_from_command(&t, 1, a5, NULL, why, sizeof why), -ENOENT);
	rm_rf(dir);
	free(dir);
}

Test(target_happy, interp_from_memory)
{
	/* A mapped image: program headers at 64, the interpreter at 512. */
	static const char interp[] = "/usr/bin/cudaload\0" RECORD_MAGIC "/lib/ld-linux-aarch64.so.1\0";
	static _Alignas(8) unsigned char mapped[1024];
	ElfW(Phdr) ph[3];
	memset(ph, 0, sizeof ph);
	ph[0].p_type = PT_PHDR;
	ph[0].p_vaddr = 64;
	ph[1].p_type = PT_INTERP;
	ph[1].p_vaddr = 512;
	ph[1].p_filesz = sizeof interp;
	ph[2].p_type = PT_LOAD;
	ph[2].p_filesz = sizeof mapped;
	memcpy(mapped + 64, ph, sizeof ph);
	memcpy(mapped + 512, interp, sizeof interp);

	struct target t;
	memset(&t, 0, sizeof t);
	cr_assert_eq(target_interp_from_memory(&t, mapped + 64, 3, sizeof(ElfW(Phdr))), 0);
	cr_assert(t.has_interp);
	cr_assert_str_eq(t.interp, "/usr/bin/cudaload");
	cr_assert_str_eq(t.recorded, "/lib/ld-linux-aarch64.so.1");
}

Test(target_happy, interp_from_file)
{
	static const char interp[] = "/usr/bin/cudaload\0" RECORD_MAGIC "/lib64/ld-linux-x86-64.so.2\0";
	struct test_elf_spec s = { .interp = interp, .interp_len = sizeof interp };
	struct test_elf e;
	test_elf_build(&e, &s);
	char *dir = scratch_dir();
	put_file(dir, "/prog", e.buf, e.len);
	struct target t;
	char why[128];
	char path[4200];
	target_init(&t);
	snprintf(path, sizeof path, "%s/prog", dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	cr_assert_geq(fd, 0);
	cr_assert_eq(target_interp_from_fd(&t, fd, why, sizeof why), 0, "%s", why);
	cr_assert_str_eq(t.interp, "/usr/bin/cudaload");
	cr_assert_str_eq(t.recorded, "/lib64/ld-linux-x86-64.so.2");
	close(fd);
	/* a descriptor that is not the program: a reason, nothing taken */
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cr_assert_eq(target_interp_from_fd(&t, fd, why, sizeof why), -1);
	cr_assert_neq(why[0], '\0');
	close(fd);
	target_free(&t);
	rm_rf(dir);
	free(dir);
}

Test(target_sad, interp_from_memory)
{
	ElfW(Phdr) ph[3];
	struct target t;
	memset(ph, 0, sizeof ph);
	memset(&t, 0, sizeof t);
	cr_assert_eq(target_interp_from_memory(&t, NULL, 0, sizeof ph[0]), -1);
	ph[0].p_type = PT_INTERP;
	ph[0].p_vaddr = 4096;
	ph[0].p_filesz = 20;
	cr_assert_eq(target_interp_from_memory(&t, ph, 1, sizeof ph[0]), -1, "no PT_PHDR");
	ph[1].p_type = PT_PHDR;
	ph[2].p_type = PT_LOAD;
	ph[2].p_filesz = 100;	/* does not cover the string */
	cr_assert_eq(target_interp_from_memory(&t, ph, 3, sizeof ph[0]), -1, "unmapped");
	cr_assert_eq(target_interp_from_memory(&t, ph, 3, 8), -1, "phentsize too small");
}
