/* SPDX-License-Identifier: MIT */
/* tools/patch/pysite.c: which Python interpreters import CUDA libraries. */
#include "helpers.h"

#include "../../tools/patch/pysite.h"

static int by_name(void *ctx, int fd, const char *path, char *why, size_t cap)
{
	(void)ctx, (void)fd;
	if (strstr(path, "_cuda") || strstr(path, "libcudart")) {
		snprintf(why, cap, "libcudart.so.12");
		return 1;
	}
	return 0;
}

Test(pysite_happy, interpreter_names)
{
	char v[16];
	cr_assert(pysite_is_python("/usr/bin/python3.12", v, sizeof v));
	cr_assert_str_eq(v, "3.12");
	cr_assert(pysite_is_python("/usr/bin/python3", v, sizeof v));
	cr_assert_str_eq(v, "3");
	cr_assert(!pysite_is_python("/usr/bin/python3-config", v, sizeof v));
	cr_assert(!pysite_is_python("/usr/bin/python3.", v, sizeof v));
	cr_assert(!pysite_is_python("/usr/bin/pythonista", v, sizeof v));
	cr_assert(!pysite_is_python("/usr/bin/python3.12m", v, sizeof v));
}

Test(pysite_happy, system_and_local_site_dirs)
{
	char *root = scratch_dir();
	put_text(root, "/usr/bin/python3.10", "");
	put_text(root, "/usr/bin/python3.11", "");
	put_text(root, "/usr/lib/python3/dist-packages/numpy/core/_multiarray.so", "");
	put_text(root, "/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so", "");
	put_text(root, "/usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cpu.so", "");
	struct pysite *p = pysite_new(root, by_name, NULL);
	char path[4200], why[4400];
	snprintf(path, sizeof path, "%s/usr/bin/python3.10", root);
	cr_assert_eq(pysite_uses_cuda(p, path, why, sizeof why), 1);
	cr_assert_str_eq(why, "through /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so (libcudart.so.12)");
	snprintf(path, sizeof path, "%s/usr/bin/python3.11", root);
	cr_assert_eq(pysite_uses_cuda(p, path, why, sizeof why), 0, "another version's packages: %s", why);
	snprintf(path, sizeof path, "%s/usr/bin/env", root);
	cr_assert_eq(pysite_uses_cuda(p, path, why, sizeof why), 0);
	pysite_free(p);
	rm_rf(root);
	free(root);
}

Test(pysite_happy, virtual_environments)
{
	char *root = scratch_dir();
	put_text(root, "/usr/bin/python3.11", "");
	put_text(root, "/opt/app/venv/pyvenv.cfg",
		 "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.11.2\n");
	put_text(root, "/opt/app/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12", "");
	put_text(root, "/opt/other/pyvenv.cfg", "home = /opt/py/bin\nversion = 3.11.2\n");
	put_text(root, "/opt/broken/pyvenv.cfg", "nothing useful\n");
	struct pysite *p = pysite_new(root, by_name, NULL);
	char path[4200], why[4400];
	snprintf(path, sizeof path, "%s/opt/app/venv/pyvenv.cfg", root);
	cr_assert_eq(pysite_add_venv(p, path), 0);
	snprintf(path, sizeof path, "%s/opt/other/pyvenv.cfg", root);
	cr_assert_eq(pysite_add_venv(p, path), 0);
	snprintf(path, sizeof path, "%s/opt/broken/pyvenv.cfg", root);
	cr_assert_eq(pysite_add_venv(p, path), 0);
	snprintf(path, sizeof path, "%s/usr/bin/python3.11", root);
	cr_assert_eq(pysite_uses_cuda(p, path, why, sizeof why), 1);
	cr_assert_str_eq(why, "through /opt/app/venv/lib/python3.11/site-packages/nvidia/cuda_runtime/lib/libcudart.so.12 (libcudart.so.12)");
	pysite_free(p);
	rm_rf(root);
	free(root);
}
