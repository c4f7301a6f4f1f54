/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../common/stores/prepared.h"

static const char valid[] =
	"cudaload-prepared 1 00000000000000aa 00000000000000bb cu\n"
	"n /sys/module/nvgpu\n"
	"f /etc/nv_tegra_release\n"
	"c fe00 5300ee\n"
	"= /usr/local/cuda-12.2/compat:/usr/lib/aarch64-linux-gnu/tegra\n"
	"? compat CUDA 12.2\n";

static int parse(const char *text, uint64_t *key, uint64_t *stamp, struct prepared_view *v,
		 char *buf)
{
	size_t n = strlen(text);
	memcpy(buf, text, n + 1);
	return prepared_parse(buf, n, key, stamp, v);
}

Test(prepared_happy, parse)
{
	char buf[PREPARED_CAP];
	uint64_t key, stamp;
	struct prepared_view v;
	cr_assert_eq(parse(valid, &key, &stamp, &v, buf), 2);
	cr_assert_eq(key, 0xaa);
	cr_assert_eq(stamp, 0xbb);
	cr_assert(v.compat && v.users_stores);
	cr_assert_str_eq(v.list, "/usr/local/cuda-12.2/compat:/usr/lib/aarch64-linux-gnu/tegra");
	cr_assert_str_eq(v.reason, "compat CUDA 12.2");
	cr_assert_eq(v.n_cands, 1);
	cr_assert(prepared_has_candidate(&v, 0xfe00, 0x5300ee));
	cr_assert(!prepared_has_candidate(&v, 0xfe00, 0x5300ef));
}

Test(prepared_happy, parse_loader)
{
	static const char text[] =
		"cudaload-prepared 1 00000000000000aa 00000000000000bb c\n"
		"f /etc/nv_tegra_release\n"
		"c fe00 5300ee\n"
		"l 0123456789abcdef g 31 p /lib/ld-linux-aarch64.so.1\n"
		"= /usr/local/cuda-12.2/compat\n"
		"? compat CUDA 12.2\n";
	char buf[PREPARED_CAP];
	uint64_t key, stamp;
	struct prepared_view v;
	cr_assert_eq(parse(text, &key, &stamp, &v, buf), 1);
	cr_assert_str_eq(v.loader.path, "/lib/ld-linux-aarch64.so.1");
	cr_assert_eq(v.loader.stamp, 0x0123456789abcdefULL);
	cr_assert(v.loader.kind == 'g' && v.loader.minor == 31 && v.loader.named);
	cr_assert_str_eq(v.list, "/usr/local/cuda-12.2/compat");
	cr_assert(prepared_has_candidate(&v, 0xfe00, 0x5300ee));
	cr_assert_eq(parse(valid, &key, &stamp, &v, buf), 2);
	cr_assert_null(v.loader.path, "none kept");
}

Test(prepared_edge, damaged)
{
	static const char *const bad[] = {
		/* the loader: a kind, a version of at most three digits, p or s,
		 * an absolute path; one, after the packages */
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef x 31 s /l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g 1234 s /l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g  s /l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g 31 q /l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g 31 s l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdeg g 31 s /l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g 31 s\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g 31 s /l\n"
		"l 0123456789abcdef g 31 s /l\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nl 0123456789abcdef g 31 s /l\n"
		"c fe00 12\n= \n? x\n",
		"",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -",	/* no newline */
		"cudaload-prepared 2 00000000000000aa 00000000000000bb -\n= \n? x\n",
		"cudaload-prepared 1 00000000000000AA 00000000000000bb -\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000b -\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb x\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nf relative\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nq /x\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nc fe00\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\nc fe00 12 3\n= \n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\n? x\n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\n= \n",
		"cudaload-prepared 1 00000000000000aa 00000000000000bb -\n= \n? x\nmore\n",
	};
	char buf[PREPARED_CAP];
	uint64_t key, stamp;
	struct prepared_view v;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		cr_assert_eq(parse(bad[i], &key, &stamp, &v, buf), -1, "accepted #%zu", i);
	/* too many inputs */
	size_t at = (size_t)snprintf(buf, sizeof buf, "cudaload-prepared 1 00000000000000aa 00000000000000bb -\n");
	for (int i = 0; i <= PREPARED_MAX_INPUTS; i++)
		at += (size_t)snprintf(buf + at, sizeof buf - at, "f /%d\n", i);
	at += (size_t)snprintf(buf + at, sizeof buf - at, "= \n? x\n");
	cr_assert_eq(prepared_parse(buf, at, &key, &stamp, &v), -1);
	/* a NUL inside: in the header, then in every later line, the last
	 * byte of a line's text included */
	memcpy(buf, valid, sizeof valid);
	buf[30] = '\0';
	cr_assert_eq(prepared_parse(buf, sizeof valid - 1, &key, &stamp, &v), -1);
	for (size_t i = strchr(valid, '\n') - valid + 1; i < sizeof valid - 1; i++) {
		if (valid[i] == '\n')
			continue;
		memcpy(buf, valid, sizeof valid);
		buf[i] = '\0';
		cr_assert_eq(prepared_parse(buf, sizeof valid - 1, &key, &stamp, &v), -1,
			     "a NUL at byte %zu taken", i);
	}
	memcpy(buf, valid, sizeof valid);
	cr_assert_geq(prepared_parse(buf, sizeof valid - 1, &key, &stamp, &v), 0, "the text itself");
}

Test(prepared_happy, key)
{
	struct settings s;
	settings_from_env(&s, NULL, false);
	uint64_t k = prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183);
	cr_assert_eq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183), k, "the same settings, the same key");
	cr_assert_neq(prepared_key("iD", 2, "/usr/bin", 8, &s, 2, 183), k, "another build");
	cr_assert_neq(prepared_key("id", 2, "/opt/bin", 8, &s, 2, 183), k, "installed elsewhere");
	cr_assert_neq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 62), k, "another machine");
	cr_assert_neq(prepared_key("id", 2, "/usr/bin", 8, &s, 1, 183), k, "another class");
	s.policy = POLICY_SYSTEM;
	cr_assert_neq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183), k, "another policy");
	s.policy = POLICY_AUTO;
	s.root = "/r";
	cr_assert_neq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183), k, "another root");
	s.root = "";
	s.first_use_off = true;
	cr_assert_neq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183), k, "first use off");
	s.first_use_off = false;
	s.visible.pci_order = true;
	cr_assert_eq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183), k,
		     "CUDA_DEVICE_ORDER alone: the GPUs seen are the same");
	s.visible.devices = "";
	uint64_t none = prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183);
	cr_assert_neq(none, k, "an empty CUDA_VISIBLE_DEVICES is not an unset one");
	s.visible.devices = "0";
	uint64_t pci0 = prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183);
	cr_assert_neq(pci0, none, "another value");
	s.visible.pci_order = false;
	cr_assert_neq(prepared_key("id", 2, "/usr/bin", 8, &s, 2, 183), pci0,
		      "with a value, another order");
}

/* A root with a package, a release and a driver dir, its files made long
 * enough ago for the racy rule: the record's start is moved on instead. */
static char *jetson(void)
{
	char *root = scratch_dir();
	put_text(root, "/etc/nv_tegra_release", "# R35 (release), REVISION: 4.1\n");
	put_text(root, "/usr/local/cuda-12.2/compat/libcuda.so.1", "elf\n");
	mkdirs(root);
	char p[512];
	snprintf(p, sizeof p, "%s/usr/lib/aarch64-linux-gnu/tegra", root);
	mkdirs(p);
	snprintf(p, sizeof p, "%s/run/cudaload", root);
	mkdirs(p);
	return root;
}

static int write_decision_with(const char *root, const char *path, uint64_t key, bool move_on,
			       const char *loader, const char *list, const char **why);

static int write_decision(const char *root, const char *path, uint64_t key, bool move_on,
			  const char **why)
{
	return write_decision_with(root, path, key, move_on, NULL, NULL, why);
}

static int write_decision_with(const char *root, const char *path, uint64_t key, bool move_on,
			       const char *loader, const char *list, const char **why)
{
	struct prepared_record r;
	cr_assert_eq(prepared_begin(&r, root), 0);
	if (move_on)
		r.began.tv_sec += 2 * PREPARED_RACY_S + 1;
	/* what a probe would look at */
	char *f = root_path(root, "/etc/nv_tegra_release");
	root_path_free(f, "/etc/nv_tegra_release");
	struct stat st;
	root_stat(root, "/usr/lib/aarch64-linux-gnu/tegra", &st);
	root_stat(root, "/run/opengl-driver/lib", &st);
	root_stat(root, "/usr/local/cuda-12.2/compat_orin", &st);
	root_stat(root, "/proc/device-tree/compatible", &st);
	root_stat(root, "/proc/driver/nvidia/gpus", &st);
	root_stat(root, "/dev/nvhost-ctrl-gpu", &st);
	struct candidates c = { 0 };
	struct candidate cand = { .dir = (char *)"/usr/local/cuda-12.2/compat", .dev = 1, .ino = 2 };
	c.v = &cand;
	c.n = 1;
	struct prepared_decision d = { .key = key, .cands = &c, .compat = true,
				       .list = list ? list : "/usr/local/cuda-12.2/compat",
				       .reason = "compat\nCUDA 12.2",
				       .loader = { .path = loader, .kind = 'g', .minor = 36 } };
	int rc = prepared_write(&r, path, &d, why);
	prepared_record_free(&r);
	return rc;
}

Test(prepared_happy, written_checked_and_stale)
{
	char *root = jetson();
	char path[512], buf[PREPARED_CAP];
	cr_assert_eq(prepared_path(path, sizeof path, root, PREPARED_DIR, 183), 0);
	const char *why = NULL;
	struct prepared_view v;

	cr_assert_eq(write_decision(root, path, 7, false, &why), 1, "files just made are racy");
	cr_assert(strstr(why, "racy"), "%s", why);
	cr_assert(!prepared_check(path, 7, buf, &v, &why));
	cr_assert_str_eq(why, "none");

	cr_assert_eq(write_decision(root, path, 7, true, &why), 0, "%s", why);
	cr_assert(prepared_check(path, 7, buf, &v, &why), "%s", why);
	cr_assert(v.compat && !v.users_stores);
	cr_assert_str_eq(v.list, "/usr/local/cuda-12.2/compat");
	cr_assert_str_eq(v.reason, "compat CUDA 12.2", "one line");
	cr_assert(prepared_has_candidate(&v, 1, 2));
	/* the inputs: the device tree is the boot's; what is missing stands
	 * as the directory above it */
	char target[PREPARED_CAP];
	ssize_t n = readlink(path, target, sizeof target - 1);
	cr_assert_gt(n, 0);
	target[n] = '\0';
	cr_assert_null(strstr(target, "device-tree"));
	cr_assert_null(strstr(target, "compat_orin"), "%s", target);
	cr_assert_not_null(strstr(target, "/usr/local/cuda-12.2\n"), "%s", target);
	cr_assert_not_null(strstr(target, "/run/opengl-driver/lib\n"), "kept as itself: /run holds the decision");
	/* the modules: nvidia not loaded, nvgpu: /sys/module's link count */
	cr_assert_not_null(strstr(target, "\nn "), "%s", target);
	cr_assert_null(strstr(target, "/sys/module/nvidia"), "%s", target);
	cr_assert_null(strstr(target, "nvhost"), "%s", target);

	/* nvidia loaded: its own node, whose reload is another inode */
	char mod[512];
	snprintf(mod, sizeof mod, "%s/sys/module/nvidia", root);
	mkdirs(mod);
	cr_assert_eq(write_decision(root, path, 7, true, &why), 0, "%s", why);
	n = readlink(path, target, sizeof target - 1);
	target[n > 0 ? n : 0] = '\0';
	cr_assert_not_null(strstr(target, "/sys/module/nvidia\n"), "%s", target);
	cr_assert(prepared_check(path, 7, buf, &v, &why), "%s", why);
	char moved[600];
	snprintf(moved, sizeof moved, "%s.old", mod);
	cr_assert_eq(rename(mod, moved), 0);
	mkdirs(mod);	/* reloaded */
	cr_assert(!prepared_check(path, 7, buf, &v, &why), "a reload did not count");

	cr_assert(!prepared_check(path, 8, buf, &v, &why), "another key");
	cr_assert(strstr(why, "another build"));

	/* each input changed: a new package beside, the release edited, a
	 * directory made where one was missing */
	static const char *const changes[] = { "/usr/local/cuda-12.2/compat_orin/x",
					       "/etc/nv_tegra_release", "/run/opengl-driver/lib/x" };
	for (size_t i = 0; i < sizeof changes / sizeof *changes; i++) {
		cr_assert_eq(write_decision(root, path, 7, true, &why), 0, "%s", why);
		cr_assert(prepared_check(path, 7, buf, &v, &why), "%s", why);
		put_text(root, changes[i], "changed\n");
		cr_assert(!prepared_check(path, 7, buf, &v, &why), "%s did not count", changes[i]);
		cr_assert_str_eq(why, "an input changed since");
	}
	rm_rf(root);
	free(root);
}

/* The loader kept beside the decision: its file's stamp, which one stat
 * compares; a file changed since says so; one changed within the racy
 * second, or named by a relative path, is not kept (the decision is). */
Test(prepared_happy, loader_kept)
{
	char *root = jetson();
	char path[512], buf[PREPARED_CAP], ld[600];
	cr_assert_eq(prepared_path(path, sizeof path, root, PREPARED_DIR, 183), 0);
	snprintf(ld, sizeof ld, "%s/ld.so", root);
	put_text(root, "/ld.so", "a loader\n");
	const char *why = NULL;
	struct prepared_view v;
	cr_assert_eq(write_decision_with(root, path, 7, true, ld, NULL, &why), 0, "%s", why);
	cr_assert(prepared_check(path, 7, buf, &v, &why), "%s", why);
	cr_assert_str_eq(v.loader.path, ld);
	cr_assert(v.loader.kind == 'g' && v.loader.minor == 36 && !v.loader.named);
	cr_assert(prepared_loader_holds(&v.loader));
	put_text(root, "/ld.so", "another loader\n");
	cr_assert(!prepared_loader_holds(&v.loader), "a loader written over did not count");
	cr_assert(prepared_check(path, 7, buf, &v, &why), "the decision itself still holds: %s", why);

	/* the loader never costs the decision: near the cap, a decision that
	 * fits without it is kept without it */
	char list[PREPARED_CAP];
	int dropped = 0;
	for (size_t n = PREPARED_CAP - 700; n < PREPARED_CAP - 300; n += 7) {
		memset(list, 'x', n);
		list[0] = '/';
		list[n] = '\0';
		int bare = write_decision_with(root, path, 7, true, NULL, list, &why);
		int with = write_decision_with(root, path, 7, true, ld, list, &why);
		cr_assert_eq(with, bare, "a %zu-byte list: %d with the loader, %d without", n, with, bare);
		dropped += with == 0 && prepared_check(path, 7, buf, &v, &why) && !v.loader.path;
	}
	cr_assert_gt(dropped, 0, "no list came near enough to the cap");

	/* changed at or after the probe's racy second (an mtime ahead of it):
	 * not kept; the decision is */
	struct timespec ahead[2] = { { .tv_nsec = UTIME_OMIT }, { .tv_sec = time(NULL) + 3600 } };
	cr_assert_eq(utimensat(AT_FDCWD, ld, ahead, 0), 0);
	cr_assert_eq(write_decision_with(root, path, 7, true, ld, NULL, &why), 0, "%s", why);
	cr_assert(prepared_check(path, 7, buf, &v, &why), "%s", why);
	cr_assert_null(v.loader.path, "a loader changed within the racy second was kept");
	cr_assert_eq(write_decision_with(root, path, 7, true, "ld.so", NULL, &why), 0, "%s", why);
	cr_assert(prepared_check(path, 7, buf, &v, &why), "%s", why);
	cr_assert_null(v.loader.path, "a relative path was kept");

	rm_rf(root);
	free(root);
}

Test(prepared_edge, not_a_decision)
{
	char *root = jetson();
	char path[512], buf[PREPARED_CAP];
	const char *why = NULL;
	struct prepared_view v;
	cr_assert_eq(prepared_path(path, sizeof path, root, PREPARED_DIR, 183), 0);
	put_text(root, PREPARED_DIR "/prepared-183", "cudaload-prepared 1\n");
	cr_assert(!prepared_check(path, 7, buf, &v, &why));
	cr_assert(strstr(why, "not a link"), "%s", why);
	unlink(path);
	cr_assert_eq(symlink("cudaload-prepared 1 nonsense", path), 0);
	cr_assert(!prepared_check(path, 7, buf, &v, &why));
	cr_assert(strstr(why, "damaged"), "%s", why);
	unlink(path);
	cr_assert(!prepared_check(path, 7, buf, &v, &why));
	cr_assert_str_eq(why, "none");
	rm_rf(root);
	free(root);
}

/* The decision's file name, built by hand (no formatter at start-up): the
 * root without its trailing slashes, the place, the machine in decimal;
 * -1 when it does not fit, with room for the NUL counted. */
Test(prepared_happy, path_names)
{
	char out[64];
	cr_assert_eq(prepared_path(out, sizeof out, "", PREPARED_DIR, 183), 0);
	cr_assert_str_eq(out, "/run/cudaload/prepared-183");
	cr_assert_eq(prepared_path(out, sizeof out, "/", PREPARED_DIR, 62), 0);
	cr_assert_str_eq(out, "/run/cudaload/prepared-62");
	cr_assert_eq(prepared_path(out, sizeof out, "/r//", "/cudaload", 0), 0);
	cr_assert_str_eq(out, "/r/cudaload/prepared-0");
	cr_assert_eq(prepared_path(out, sizeof out, "/x", "/d", 65535), 0);
	cr_assert_str_eq(out, "/x/d/prepared-65535");
	size_t need = strlen("/x/d/prepared-65535") + 1;
	cr_assert_eq(prepared_path(out, need, "/x", "/d", 65535), 0, "exactly room");
	cr_assert_eq(prepared_path(out, need - 1, "/x", "/d", 65535), -1, "one byte short");
}
