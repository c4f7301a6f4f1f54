/* SPDX-License-Identifier: MIT */
#include "pysite.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/base/array.h"
#include "../../common/base/sys.h"

#define SCAN_DEPTH 6	/* torch/lib/x.so is 3 down; nvidia/cublas/lib/x.so 4 */

struct venv {
	char *home;		/* the interpreter's directory, in the image */
	char *version;		/* "3.11.2" */
	char *site;		/* its lib/python3.X/site-packages, in the image */
};

struct site {
	char *dir;
	int answer;		/* 0, 1 */
	char *why;
};

struct pysite {
	char *root;
	closure_judge judge;
	void *ctx;
	struct venv *venvs;
	size_t n_venvs, cap_venvs;
	bool venvs_searched;
	struct site *sites;
	size_t n_sites, cap_sites;
};

struct pysite *pysite_new(const char *root, closure_judge judge, void *ctx)
{
	struct pysite *p = calloc(1, sizeof *p);
	if (!p || !(p->root = strndup(root ? root : "", root_len(root ? root : "")))) {
		free(p);
		return NULL;
	}
	p->judge = judge;
	p->ctx = ctx;
	return p;
}

void pysite_free(struct pysite *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_sites; i++) {
		free(p->sites[i].why);
		free(p->sites[i].dir);
	}
	free(p->sites);
	for (size_t i = 0; i < p->n_venvs; i++) {
		free(p->venvs[i].site);
		free(p->venvs[i].version);
		free(p->venvs[i].home);
	}
	free(p->venvs);
	free(p->root);
	free(p);
}

bool pysite_is_python(const char *path, char *version, size_t cap)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, "python", 6) != 0)
		return false;
	const char *v = base + 6;
	size_t major = strspn(v, "0123456789");
	if (!major)
		return false;
	size_t n = major;
	if (v[n] == '.') {
		size_t minor = strspn(v + n + 1, "0123456789");
		if (!minor)
			return false;
		n += 1 + minor;
	}
	if (v[n] != '\0')
		return false;
	snprintf(version, cap, "%.*s", (int)n, v);
	return true;
}

/* "key = value" of a pyvenv.cfg line, or NULL. */
static char *cfg_value(char *line, const char *key)
{
	size_t kl = strlen(key);
	char *s = line + strspn(line, " \t");
	if (strncmp(s, key, kl) != 0)
		return NULL;
	s += kl;
	s += strspn(s, " \t");
	if (*s != '=')
		return NULL;
	s++;
	s += strspn(s, " \t");
	size_t n = strcspn(s, "\r\n");
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	s[n] = '\0';
	return s;
}

int pysite_add_venv(struct pysite *p, const char *cfg)
{
	size_t rl = strlen(p->root);
	if (strncmp(cfg, p->root, rl) != 0)
		return 0;
	FILE *f = fopen(cfg, "re");
	if (!f)
		return 0;
	char line[CL_PATH_MAX], home[CL_PATH_MAX] = "", version[64] = "";
	while (fgets(line, sizeof line, f)) {
		char *v;
		if ((v = cfg_value(line, "home")))
			snprintf(home, sizeof home, "%s", v);
		else if ((v = cfg_value(line, "version")) || (v = cfg_value(line, "version_info")))
			snprintf(version, sizeof version, "%s", v);
	}
	fclose(f);
	/* lib/python3.X/site-packages beside the file, for "3.X[.Y]" */
	char mm[16];
	size_t dots = 0, n = 0;
	for (; version[n] && n < sizeof mm - 1; n++)
		if (version[n] == '.' && ++dots == 2)
			break;
	snprintf(mm, sizeof mm, "%.*s", (int)n, version);
	if (home[0] != '/' || !version[0] || !dots)
		return 0;
	const char *slash = strrchr(cfg, '/');
	char site[CL_PATH_MAX];
	snprintf(site, sizeof site, "%.*s/lib/python%s/site-packages", (int)(slash - cfg - rl), cfg + rl, mm);
	size_t hl = strlen(home);
	while (hl > 1 && home[hl - 1] == '/')
		home[--hl] = '\0';
	if (array_room(&p->venvs, p->n_venvs, &p->cap_venvs, sizeof *p->venvs, 4) < 0)
		return -1;
	struct venv *e = &p->venvs[p->n_venvs];
	if (!(e->home = strdup(home)) || !(e->version = strdup(version)) || !(e->site = strdup(site))) {
		free(e->version);
		free(e->home);
		return -1;
	}
	p->n_venvs++;
	return 0;
}

static bool is_shared_object_name(const char *name)
{
	const char *so = strstr(name, ".so");
	while (so && so[3] != '\0' && so[3] != '.')
		so = strstr(so + 1, ".so");
	return so != NULL;
}

/* Depth first, in name order: the first library the rule takes. */
static int scan(struct pysite *p, char *dir, size_t len, size_t cap, int depth, char *why,
		size_t whycap)
{
	struct dirent **ents;
	int n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0)
		return 0;
	int found = 0;
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		size_t nl = strlen(name);
		if (found || name[0] == '.' || len + 1 + nl >= cap)
			continue;
		dir[len] = '/';
		memcpy(dir + len + 1, name, nl + 1);
		struct stat st;
		if (lstat(dir, &st) < 0) {
			/* gone since the listing: nothing to judge */
		} else if (S_ISDIR(st.st_mode) && depth < SCAN_DEPTH) {
			found = scan(p, dir, len + 1 + nl, cap, depth + 1, why, whycap);
		} else if (S_ISREG(st.st_mode) && is_shared_object_name(name)) {
			int fd = open(dir, O_RDONLY | O_CLOEXEC);
			char said[128] = "";
			if (fd >= 0 && p->judge(p->ctx, fd, dir, said, sizeof said) == 1) {
				snprintf(why, whycap, "%s (%s)", dir + strlen(p->root), said);
				found = 1;
			}
			if (fd >= 0)
				close(fd);
		}
		dir[len] = '\0';
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return found;
}

/* Every pyvenv.cfg of the image, once, whatever the walk was given: a venv
 * decides the interpreter it runs, which usually lies elsewhere.  The
 * kernel's and the run-time trees hold none.  nftw has no context: one
 * search at a time. */
static struct pysite *searching;
static bool search_oom;

static int venv_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	static const char *const skipped[] = { "proc", "sys", "dev", "run", "tmp" };
	const char *base = path + ftw->base;
	if (type == FTW_D && ftw->level == 1)
		for (size_t i = 0; i < sizeof skipped / sizeof skipped[0]; i++)
			if (strcmp(base, skipped[i]) == 0)
				return FTW_SKIP_SUBTREE;
	if (type == FTW_F && strcmp(base, "pyvenv.cfg") == 0 && pysite_add_venv(searching, path) < 0) {
		search_oom = true;
		return FTW_STOP;
	}
	return FTW_CONTINUE;
}

static int find_venvs(struct pysite *p)
{
	p->venvs_searched = true;
	searching = p;
	search_oom = false;
	nftw(p->root, venv_entry, 32, FTW_PHYS | FTW_ACTIONRETVAL);
	searching = NULL;
	return search_oom ? -1 : 0;
}

/* One site directory's answer, scanned once. */
static int site_answer(struct pysite *p, const char *dir, const char **why)
{
	for (size_t i = 0; i < p->n_sites; i++)
		if (strcmp(p->sites[i].dir, dir) == 0) {
			*why = p->sites[i].why;
			return p->sites[i].answer;
		}
	char path[CL_PATH_MAX], said[CL_PATH_MAX + 160] = "", real[CL_PATH_MAX];
	/* in an image, its links resolved inside it (a usr that links out of
	 * the image is not this machine's /usr); the scan follows none */
	int len = !p->root[0] ? snprintf(path, sizeof path, "%s", dir)
		  : closure_resolve(p->root, dir, real, sizeof real) == 0
		  ? snprintf(path, sizeof path, "%s%s", p->root, real) : -1;
	int answer = len > 0 && len < (int)sizeof path
		? scan(p, path, (size_t)len, sizeof path, 0, said, sizeof said) : 0;
	if (array_room(&p->sites, p->n_sites, &p->cap_sites, sizeof *p->sites, 8) < 0)
		return -1;
	struct site *s = &p->sites[p->n_sites];
	s->why = NULL;
	if (!(s->dir = strdup(dir)) || (answer && !(s->why = strdup(said)))) {
		free(s->dir);
		return -1;
	}
	s->answer = answer;
	p->n_sites++;
	*why = s->why;
	return answer;
}

int pysite_uses_cuda(struct pysite *p, const char *path, char *why, size_t cap)
{
	char version[16];
	size_t rl = strlen(p->root);
	if (cap)
		why[0] = '\0';
	if (!pysite_is_python(path, version, sizeof version) || strncmp(path, p->root, rl) != 0)
		return 0;
	const char *in_image = path + rl, *slash = strrchr(in_image, '/');
	size_t dl = slash ? (size_t)(slash - in_image) : 0;
	char dirs[8][CL_PATH_MAX];	/* a prefix can lie deep (pixi's .pixi/envs) */
	int nd = 0;
	snprintf(dirs[nd++], sizeof dirs[0], "/usr/lib/python3/dist-packages");
	if (strchr(version, '.')) {
		static const char *const prefixes[] = { "/usr/lib", "/usr/local/lib" };
		static const char *const kinds[] = { "site-packages", "dist-packages" };
		for (size_t i = 0; i < 2; i++)
			for (size_t k = 0; k < 2; k++)
				snprintf(dirs[nd++], sizeof dirs[0], "%s/python%s/%s", prefixes[i], version,
					 kinds[k]);
	}
	/* its own prefix's (PREFIX/bin/pythonX.Y): conda, mamba, pixi and
	 * micromamba environments, /opt/pythonX.Y, pyenv */
	if (strchr(version, '.') && dl > 4 && strncmp(in_image + dl - 4, "/bin", 4) == 0 &&
	    snprintf(dirs[nd], sizeof dirs[0], "%.*s/lib/python%s/site-packages", (int)(dl - 4),
		     in_image, version) < (int)sizeof dirs[0])
		nd++;
	for (int i = 0; i < nd; i++) {
		const char *w;
		int r = site_answer(p, dirs[i], &w);
		if (r != 0) {
			if (r > 0)
				snprintf(why, cap, "through %s", w);
			return r;
		}
	}
	/* the virtual environments that run this interpreter, anywhere in an image */
	if (p->root[0] && !p->venvs_searched && find_venvs(p) < 0)
		return -1;
	for (size_t i = 0; i < p->n_venvs; i++) {
		const struct venv *e = &p->venvs[i];
		size_t vl = strlen(version);
		if (strlen(e->home) != dl || strncmp(e->home, in_image, dl) != 0 ||
		    strncmp(e->version, version, vl) != 0 || (e->version[vl] && e->version[vl] != '.'))
			continue;
		const char *w;
		int r = site_answer(p, e->site, &w);
		if (r != 0) {
			if (r > 0)
				snprintf(why, cap, "through %s", w);
			return r;
		}
	}
	return 0;
}
