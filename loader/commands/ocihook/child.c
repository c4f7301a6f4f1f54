/* SPDX-License-Identifier: MIT */
#include "child.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../../common/base/env.h"
#include "../../../common/decision/judge.h"
#include "../../../common/elf/ldcache.h"
#include "../../../common/packages/reach.h"
#include "../../../common/report/report.h"
#include "image.h"
#include "word.h"

extern const ElfW(Ehdr) __ehdr_start;

struct cache_seen {
	const struct candidates *c;
	const bool *hidden;
	bool names_hidden;
};

static void cache_entry(const char *path, void *arg)
{
	struct cache_seen *cs = arg;
	char dir[CL_PATH_MAX / 4];
	const char *slash = strrchr(path, '/');
	struct stat st;
	if (!slash || (size_t)(slash - path) >= sizeof dir)
		return;
	memcpy(dir, path, (size_t)(slash - path));
	dir[slash - path] = '\0';
	if (stat(dir[0] ? dir : "/", &st) < 0)
		return;
	for (size_t i = 0; i < cs->c->n; i++)
		if (cs->hidden[i] && cs->c->v[i].dev == st.st_dev && cs->c->v[i].ino == st.st_ino)
			cs->names_hidden = true;
}

/* Inside the image: what to hide, what to put first, and the account. */
static void tell(struct word *w, struct judgement *j, struct settings *s)
{
	const struct candidates *c = &j->cands;
	int chosen = j->d.use_compat ? j->d.chosen : -1;
	bool *hidden = calloc(c->n + 1, sizeof *hidden);
	if (!hidden) {
		word_put(w, "E");
		word_put(w, "out of memory");
		return;
	}
	for (size_t i = 0; i < c->n; i++) {
		if ((int)i == chosen || !c->v[i].has_lib)
			continue;
		if (reach_nvidia_only("", c->v[i].dir)) {
			hidden[i] = true;
			word_put_dir(w, "H", &c->v[i]);
		} else {
			word_put(w, "K");
			word_put(w, c->v[i].dir);
			word_put(w, "its directory holds other libraries too");
		}
	}
	if (chosen >= 0)
		word_put_dir(w, "F", &c->v[chosen]);
	struct cache_seen cs = { c, hidden, false };
	ldcache_find("", "libcuda.so.1", __ehdr_start.e_machine, cache_entry, &cs);
	if (cs.names_hidden)
		word_put(w, "C");
	free(hidden);
	char *text = NULL;
	size_t tl = 0;
	FILE *f = open_memstream(&text, &tl);
	struct report r = { .settings = s, .host = &j->host, .candidates = c, .decision = &j->d,
			    .now = (long long)time(NULL), .mode = "container",
			    .mode_why = "cudaload --oci-hook judged the image at its creation" };
	if (f) {
		report_text(f, &r);
		fclose(f);
	}
	word_put(w, "R");
	word_put(w, text ? text : "");
}

void child_judge(const struct bundle *b, char **env, struct settings *s, int out)
{
	struct word w = { malloc(WORD_MAX), 0, WORD_MAX, false };
	char why[512];
	struct judgement *j = malloc(sizeof *j);
	struct settings *image = malloc(sizeof *image);
	if (dup2(out, 3) < 0 || !w.buf || !j || !image)
		_exit(1);
	image_close_fds(3);
	out = 3;
	/* the host, from outside the image; then the image, from inside */
	struct judge_in in = { .s = s, .cls = __ehdr_start.e_ident[EI_CLASS], .machine = __ehdr_start.e_machine,
			       .full = true, .stores = JUDGE_STORES_NONE,
			       .gpu_minors = b->gpus_from && !b->minors_full ? b->minors : NULL,
			       .n_gpu_minors = b->n_minors };
	judge_init(j);
	judge_look_at_host(&in, j);
	const char *problem = image_enter(b->root, why, sizeof why) < 0 ? why : image_conf_sound(NULL, why, sizeof why);
	if (problem) {
		word_put(&w, "E");
		word_put(&w, problem);
	} else {
		/* the image's settings, as its own starts see them: its root, its
		 * config file, and the places the hook's settings named */
		*image = *s;
		image->root = "";
		image->compat = (char **)config_default_compat;
		image->n_compat = config_default_compat_n;
		settings_load_config(image, env, NULL);
		struct reach r = { .root = "", .machine = __ehdr_start.e_machine, .explain = true, .conf = true,
				   .llp = env_get((char **)b->env, "LD_LIBRARY_PATH"),
				   .conda_prefix = env_get((char **)b->env, "CONDA_PREFIX"),
				   .cuda_home = env_get((char **)b->env, "CUDA_HOME"), .cuda_home_from = "CUDA_HOME" };
		if (!r.cuda_home) {
			r.cuda_home = env_get((char **)b->env, "CUDA_PATH");
			r.cuda_home_from = "CUDA_PATH";
		}
		in.image = image;
		in.image_reach = &r;
		judge_look_for_packages(&in, j);
		if (!j->whole) {
			word_put(&w, "E");
			word_put(&w, "out of memory while looking for compat packages");
		} else {
			judge_weigh(&in, j);
			tell(&w, j, image);
		}
	}
	word_end(&w);
	for (size_t off = 0; off < w.n;) {
		ssize_t n = write(out, w.buf + off, w.n - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			_exit(1);
		off += (size_t)n;
	}
	_exit(0);
}
