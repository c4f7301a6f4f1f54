/* SPDX-License-Identifier: MIT */
#include "helpers.h"

#include "../../common/settings/settings.h"
#include "../../common/base/diag.h"

static char *env_path_conf(const char *file)
{
	char *s = malloc(strlen(file) + 20);
	sprintf(s, "CUDALOAD_CONFIG=%s", file);
	return s;
}

Test(config_happy, environment)
{
	char *envp[] = {
		"CUDALOAD_POLICY=compat", "CUDALOAD_MODE=exec", "CUDALOAD_ROOT=/fixture",
		"CUDALOAD_LDSO=/lib/ld.so", "CUDALOAD_COMPAT_PATH=/a/compat::/b/compat",
		"OTHER=1", "CUDA_VISIBLE_DEVICES=GPU-5d8a", "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL,
	};
	struct settings s;
	settings_from_env(&s, envp, false);
	cr_assert_eq(s.policy, POLICY_COMPAT);
	cr_assert_str_eq(s.policy_from, "CUDALOAD_POLICY");
	cr_assert_str_eq(s.root, "/fixture");
	cr_assert_str_eq(s.ldso_env, "/lib/ld.so");
	cr_assert_eq(s.n_compat_env, 2);
	cr_assert_str_eq(s.compat_env[1], "/b/compat");
	cr_assert_eq(s.n_compat, 3, "the default globs");
	cr_assert_eq(s.mode, MODE_EXEC, "CUDALOAD_MODE=exec");
	cr_assert_str_eq(s.visible.devices, "GPU-5d8a");
	cr_assert(s.visible.pci_order);
	settings_free(&s);
}

Test(config_happy, secure_ignores_environment)
{
	char *envp[] = { "CUDALOAD_POLICY=compat", "CUDALOAD_ROOT=/x", "CUDALOAD_DEBUG=1",
			 "CUDALOAD_COMPAT_PATH=/evil", "CUDALOAD_LDSO=/evil/ld.so",
			 "CUDA_VISIBLE_DEVICES=GPU-5d8a", NULL };
	struct settings s;
	settings_from_env(&s, envp, true);
	cr_assert_eq(s.policy, POLICY_AUTO);
	cr_assert_str_eq(s.root, "");
	cr_assert(!s.debug);
	cr_assert_eq(s.n_compat_env, 0);
	cr_assert_null(s.ldso_env);
	cr_assert_eq(s.mode, MODE_CHAIN, "the default");
	cr_assert_null(s.visible.devices, "a set-id program is judged on every GPU");
	settings_free(&s);
}

Test(config_happy, file_keys)
{
	struct settings s;
	settings_from_env(&s, NULL, false);
	settings_parse_config(&s,
		"# comment\n\n  policy = system  # trailing\nmode=chain\n"
		"compat = /opt/cuda-*/compat\ncompat=/srv/compat\n"
		"driver_dir = /run/opengl-driver/lib\nldso.aarch64 = /lib/ld-linux-aarch64.so.1\n"
		"ldso.x86_64 = /lib64/ld-linux-x86-64.so.2", "test.conf");
	cr_assert_eq(s.policy, POLICY_SYSTEM);
	cr_assert_str_eq(s.policy_from, "config");
	cr_assert_eq(s.mode, MODE_CHAIN);
	cr_assert_eq(s.n_compat, 2, "config compat entries replace the defaults");
	cr_assert_str_eq(s.compat[0], "/opt/cuda-*/compat");
	cr_assert(s.compat_from_config);
	cr_assert_eq(s.n_driver_dirs, 1);
	cr_assert_str_eq(settings_ldso_for(&s, "aarch64"), "/lib/ld-linux-aarch64.so.1");
	cr_assert_str_eq(settings_ldso_for(&s, "x86_64"), "/lib64/ld-linux-x86-64.so.2");
	cr_assert_null(settings_ldso_for(&s, "riscv"));
	settings_free(&s);
}

Test(config_happy, environment_beats_file)
{
	char *envp[] = { "CUDALOAD_POLICY=compat", "CUDALOAD_MODE=exec", NULL };
	struct settings s;
	settings_from_env(&s, envp, false);
	settings_parse_config(&s, "policy = system\nmode = chain\n", "t");
	cr_assert_eq(s.policy, POLICY_COMPAT);
	cr_assert_eq(s.mode, MODE_EXEC);
	settings_free(&s);
}

Test(config_sad, bad_lines_reported, .init = cr_redirect_stderr)
{
	struct settings s;
	settings_from_env(&s, NULL, false);
	char longline[5000];
	memset(longline, 'x', sizeof longline - 1);
	longline[sizeof longline - 1] = '\0';
	char text[6000];
	snprintf(text, sizeof text,
		 "policy = maybe\nnonsense\nfoo = bar\ncompat = relative/dir\nldso. = /x\n"
		 "mode = warp\npolicy =\n%s\nldso.x86-64 = /lib64/ld-linux-x86-64.so.2\n", longline);
	settings_parse_config(&s, text, "/etc/cudaload.conf");
	cr_assert_eq(s.policy, POLICY_AUTO);
	cr_assert_eq(s.n_compat, 3);
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"cudaload: /etc/cudaload.conf:1: policy must be auto, compat or system; skipped\n"
		"cudaload: /etc/cudaload.conf:2: expected 'key = value'; skipped\n"
		"cudaload: /etc/cudaload.conf:3: unknown key 'foo'; skipped\n"
		"cudaload: /etc/cudaload.conf:4: path must be absolute; skipped\n"
		"cudaload: /etc/cudaload.conf:5: unknown key 'ldso.'; skipped\n"
		"cudaload: /etc/cudaload.conf:6: mode must be exec or chain; skipped\n"
		"cudaload: /etc/cudaload.conf:7: empty value; skipped\n"
		"cudaload: /etc/cudaload.conf:8: line too long; skipped\n"
		"cudaload: /etc/cudaload.conf:9: ldso.x86-64: no machine of that name (x86_64, aarch64, ...); kept, but no program will use it\n");
	cr_assert_eq(s.n_warnings, 9, "kept for --explain");
	cr_assert_str_eq(s.warnings[0], "/etc/cudaload.conf:1: policy must be auto, compat or system; skipped");
	settings_free(&s);
}

Test(config_happy, load_order)
{
	char *root = scratch_dir();
	put_text(root, "/etc/cudaload.conf", "policy = system\n");
	put_text(root, "/opt/cudaload/etc/cudaload.conf", "policy = compat\n");
	put_text(root, "/opt/cudaload/bin/cudaload", "");
	char *envp[] = { NULL, NULL };
	char rootenv[4200];
	snprintf(rootenv, sizeof rootenv, "CUDALOAD_ROOT=%s", root);
	envp[0] = rootenv;
	struct settings s;
	settings_from_env(&s, envp, false);
	char self_dir[4200];
	snprintf(self_dir, sizeof self_dir, "%s/opt/cudaload/bin/cudaload", root);
	settings_load_config(&s, envp, self_dir);
	cr_assert_eq(s.policy, POLICY_SYSTEM, "the root's /etc first");
	settings_free(&s);

	char etc[4200];
	snprintf(etc, sizeof etc, "%s/etc/cudaload.conf", root);
	unlink(etc);
	settings_from_env(&s, envp, false);
	settings_load_config(&s, envp, self_dir);
	cr_assert_eq(s.policy, POLICY_COMPAT, "then ../etc beside the binary");
	settings_free(&s);

	char conf[4200];
	snprintf(conf, sizeof conf, "%s/opt/cudaload/etc/cudaload.conf", root);
	char *envp2[] = { env_path_conf(conf), NULL };
	settings_from_env(&s, envp2, false);
	settings_load_config(&s, envp2, NULL);
	cr_assert_eq(s.policy, POLICY_COMPAT, "CUDALOAD_CONFIG");
	cr_assert_str_eq(s.config_path, conf);
	settings_free(&s);
	free(envp2[0]);
	rm_rf(root);
	free(root);
}

/* A config file is read without the heap when it is short and its path
 * fits in the settings (a start's first allocation maps a page), and on it
 * when not: both give the same settings and the same path. */
Test(config_happy, short_and_long_paths_and_files)
{
	char *root = scratch_dir();
	char deep[300] = "/etc";
	while (strlen(deep) < 200)
		strcat(deep, "/nested-directory");
	strcat(deep, "/cudaload.conf");
	char big[4000] = "# padding past the stack buffer\n";
	while (strlen(big) < 3000)
		strcat(big, "# .........................................................\n");
	strcat(big, "policy = system\n");
	const struct { const char *path, *text; bool in_struct; enum policy want; } cases[] = {
		{ "/c.conf", "policy = compat\n", true, POLICY_COMPAT },
		{ "/c-big.conf", big, true, POLICY_SYSTEM },
		{ deep, "mode = exec\npolicy = compat\n", false, POLICY_COMPAT },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		put_text(root, cases[i].path, cases[i].text);
		char conf[4200];
		snprintf(conf, sizeof conf, "%s%s", root, cases[i].path);
		char *envp[] = { env_path_conf(conf), NULL };
		struct settings s;
		settings_from_env(&s, envp, false);
		settings_load_config(&s, envp, NULL);
		cr_assert_eq(s.policy, cases[i].want, "%s", cases[i].path);
		cr_assert_str_eq(s.config_path, conf);
		cr_assert_eq(s.config_path == s.config_path_here, cases[i].in_struct && strlen(conf) < sizeof s.config_path_here,
			     "%s: where the path is kept", cases[i].path);
		/* a second file read over the first: the first's path given back */
		settings_load_config(&s, envp, NULL);
		cr_assert_str_eq(s.config_path, conf);
		settings_free(&s);
		free(envp[0]);
	}
	rm_rf(root);
	free(root);
}

Test(config_sad, unreadable_and_odd_files, .init = cr_redirect_stderr)
{
	char *root = scratch_dir();
	char conf[4200];
	snprintf(conf, sizeof conf, "%s/missing.conf", root);
	char *envp[] = { env_path_conf(conf), NULL };
	struct settings s;
	settings_from_env(&s, envp, false);
	settings_load_config(&s, envp, NULL);
	cr_assert_null(s.config_path);
	settings_free(&s);
	free(envp[0]);

	char *envp2[] = { env_path_conf(root), NULL };	/* a directory */
	settings_from_env(&s, envp2, false);
	settings_load_config(&s, envp2, NULL);
	cr_assert_null(s.config_path);
	settings_free(&s);
	free(envp2[0]);

	char *envp3[] = { env_path_conf("/dev/zero"), NULL };	/* endless, not regular */
	settings_from_env(&s, envp3, false);
	settings_load_config(&s, envp3, NULL);
	cr_assert_null(s.config_path);
	settings_free(&s);
	free(envp3[0]);
	fflush(stderr);
	char expect[10000];
	snprintf(expect, sizeof expect,
		 "cudaload: %s: No such file or directory; config ignored\n"
		 "cudaload: %s: not a regular file; config ignored\n"
		 "cudaload: /dev/zero: not a regular file; config ignored\n", conf, root);
	cr_assert_stderr_eq_str(expect);
	rm_rf(root);
	free(root);
}

Test(config_happy, policy_names)
{
	enum policy p;
	cr_assert_eq(policy_parse("auto", &p), 0);
	cr_assert_eq(policy_parse("AUTO", &p), -1);
	cr_assert_str_eq(policy_name(POLICY_COMPAT), "compat");
	cr_assert_str_eq(mode_name(MODE_CHAIN), "chain");
}

/* The NixOS module writes the version of a store path it knows (nix/module.nix). */
Test(config_happy, compat_stated_cuda)
{
	struct settings s;
	settings_from_env(&s, NULL, false);
	settings_parse_config(&s,
		"compat = /nix/store/abc-cuda_compat-12.2.34086978/compat cuda=12.2\n"
		"compat = /opt/with space/compat\n"
		"compat = /opt/tabbed\tcuda=12.6  # a comment\n", "t");
	cr_assert_eq(s.n_compat, 3);
	cr_assert_str_eq(s.compat[0], "/nix/store/abc-cuda_compat-12.2.34086978/compat");
	cr_assert_eq(s.compat_cuda[0], 12020);
	cr_assert_str_eq(s.compat[1], "/opt/with space/compat", "a path may hold spaces");
	cr_assert_eq(s.compat_cuda[1], 0);
	cr_assert_str_eq(s.compat[2], "/opt/tabbed");
	cr_assert_eq(s.compat_cuda[2], 12060);
	settings_free(&s);
}

Test(config_sad, compat_stated_cuda_bad, .init = cr_redirect_stderr)
{
	struct settings s;
	settings_from_env(&s, NULL, false);
	settings_parse_config(&s, "compat = /a cuda=twelve\ncompat = /b cuda=12.2.1\ncompat = cuda=12.2\n"
			      "driver_dir = /c cuda=12.2\n", "t");
	cr_assert_eq(s.n_compat, 3, "the defaults stay");
	cr_assert_eq(s.compat_cuda[0], 0);
	cr_assert_eq(s.n_driver_dirs, 1, "driver_dir takes no version: the whole value is its path");
	cr_assert_str_eq(s.driver_dirs[0], "/c cuda=12.2");
	fflush(stderr);
	cr_assert_stderr_eq_str(
		"cudaload: t:1: cuda= needs a version like 12.2; skipped\n"
		"cudaload: t:2: cuda= needs a version like 12.2; skipped\n"
		"cudaload: t:3: path must be absolute; skipped\n");
	settings_free(&s);
}

/* More than CONFIG_MAX_LIST entries were dropped without a word;
 * the drop is said once per list (stderr and --explain), naming the first
 * entry left out. */
Test(config_sad, list_limit_said, .init = cr_redirect_stderr)
{
	char env[64 + 80 * 12];
	size_t n = (size_t)sprintf(env, "CUDALOAD_COMPAT_PATH=");
	for (int i = 0; i < CONFIG_MAX_LIST + 6; i++)
		n += (size_t)sprintf(env + n, "%s/c%d", i ? ":" : "", i);
	char *envp[] = { env, NULL };
	struct settings s;
	settings_from_env(&s, envp, false);
	cr_assert_eq(s.n_compat_env, CONFIG_MAX_LIST);
	cr_assert_str_eq(s.compat_env[CONFIG_MAX_LIST - 1], "/c63");
	cr_assert_eq(s.n_warnings, 1);
	cr_assert_str_eq(s.warnings[0],
			 "CUDALOAD_COMPAT_PATH: more than 64 entries; '/c64' and every later one ignored");

	char text[8192];
	n = 0;
	for (int i = 0; i < CONFIG_MAX_LIST + 3; i++)
		n += (size_t)sprintf(text + n, "compat = /d%d\ndriver_dir = /e%d\n", i, i);
	settings_parse_config(&s, text, "/etc/cudaload.conf");
	cr_assert_eq(s.n_compat, CONFIG_MAX_LIST);
	cr_assert_eq(s.n_driver_dirs, CONFIG_MAX_LIST);
	cr_assert_eq(s.n_warnings, 3, "one for each list");
	cr_assert_str_eq(s.warnings[1], "compat: more than 64 entries; '/d64' and every later one ignored");
	cr_assert_str_eq(s.warnings[2], "driver_dir: more than 64 entries; '/e64' and every later one ignored");
	settings_free(&s);

	/* an entry no path can be is said too */
	char *big = malloc(CL_PATH_MAX + 64);
	n = (size_t)sprintf(big, "CUDALOAD_COMPAT_PATH=/ok:");
	memset(big + n, 'x', CL_PATH_MAX);
	big[n + CL_PATH_MAX] = '\0';
	char *envp2[] = { big, NULL };
	settings_from_env(&s, envp2, false);
	cr_assert_eq(s.n_compat_env, 1);
	cr_assert_eq(s.n_warnings, 1);
	cr_assert(strstr(s.warnings[0], "is longer than a path can be; ignored"), "%s", s.warnings[0]);
	settings_free(&s);
	free(big);
}

/* A variable twice in the environment.  getenv and musl's ld.so
 * take the first, glibc's ld.so the last. */
Test(config_happy, env_first_and_last)
{
	char *envp[] = { "LD_LIBRARY_PATH=/a", "X=1", "LD_LIBRARY_PATH_NOT=/n", "LD_LIBRARY_PATH=/b", NULL };
	cr_assert_str_eq(env_get(envp, "LD_LIBRARY_PATH"), "/a");
	cr_assert_str_eq(env_get_last(envp, "LD_LIBRARY_PATH"), "/b");
	cr_assert_null(env_get_last(envp, "LD_PRELOAD"));
	cr_assert_null(env_get_last(NULL, "X"));
}

/* Several names in one pass: each as env_get finds it alone, the first of
 * two, not a longer name that starts with it, not a name without '='. */
Test(config_happy, env_get_each_as_env_get)
{
	char *envp[] = { "CUDA_HOMEX=/x", "CUDA_HOME", "CUDA_PATH=/p", "CUDA_HOME=/h", "CONDA_PREFIX=",
			 "CUDA_HOME=/second", NULL };
#define NAMES(X) X(CONDA, "CONDA_PREFIX") X(HOME, "CUDA_HOME") X(PATH, "CUDA_PATH") X(NONE, "CUDA_NONE")
	static const char names[] = NAMES(ENV_NAME);
	static const unsigned char lens[] = { NAMES(ENV_LEN) };
	const char *v[4] = { "junk", "junk", "junk", "junk" };
	env_get_each(envp, names, lens, v, 4);
	const char *one = names;
	for (int i = 0; i < 4; i++, one += strlen(one) + 1) {
		const char *want = env_get(envp, one);
		cr_assert(want ? v[i] && strcmp(v[i], want) == 0 : !v[i], "%s", one);
	}
	cr_assert_str_eq(v[1], "/h");
	cr_assert_str_eq(v[0], "");
	cr_assert_null(v[3]);
	env_get_each(NULL, names, lens, v, 4);
	cr_assert(!v[0] && !v[1] && !v[2] && !v[3], "no environment: none");
}
