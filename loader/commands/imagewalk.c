/* SPDX-License-Identifier: MIT */
#include "imagewalk.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../common/elf/elfread.h"
#include "../../common/base/sys.h"

const char imagewalk_dirs[IMAGEWALK_N_DIRS][12] = { "/usr/bin", "/usr/sbin", "/usr/local", "/opt" };

struct walk {
	struct patchlist *pl;
	size_t root_len;	/* path[0..root_len) is the root */
	char *path;		/* CL_PATH_MAX: the root and the file being looked at */
	unsigned char *head;	/* ELF_HEAD: one buffer for every file's first bytes */
	struct elf_program *prog;
	int oom;
};

/* The file at w->path: recorded when its PT_INTERP carries the record. */
static void look_at(struct walk *w)
{
	char why[96];
	struct stat st;
	struct elf_file ef;
	int fd = open_ro(w->path, O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111) &&
	    elfread_open_fd_head(&ef, fd, w->head, ELF_HEAD, why, sizeof why) == 0) {
		const char *path = w->path + w->root_len;
		if (elfread_read_program(&ef, w->prog, why, sizeof why) == 0 && w->prog->has_interp &&
		    w->prog->recorded[0] && patchlist_storable(w->prog->interp, path) &&
		    patchlist_add(w->pl, w->prog->interp, path) < 0)
			w->oom = 1;
		elfread_release(&ef);
	}
	close(fd);
}

static void walk_dir(struct walk *w, int depth)
{
	DIR *d = depth < IMAGEWALK_DEPTH ? opendir(w->path) : NULL;
	if (!d)
		return;
	size_t len = strlen(w->path);
	for (struct dirent *e; !w->oom && (e = readdir(d));) {
		const char *n = e->d_name;
		size_t nl = strlen(n);
		if ((n[0] == '.' && (!n[1] || (n[1] == '.' && !n[2]))) || len + 1 + nl >= CL_PATH_MAX)
			continue;
		w->path[len] = '/';
		memcpy(w->path + len + 1, n, nl + 1);
		unsigned char type = e->d_type;
		struct stat st;
		if (type == DT_UNKNOWN && lstat(w->path, &st) == 0)
			type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_LNK;
		if (type == DT_DIR)
			walk_dir(w, depth + 1);
		else if (type == DT_REG)
			look_at(w);
	}
	w->path[len] = '\0';
	closedir(d);
}

int imagewalk(const char *root, struct patchlist *pl)
{
	struct walk w = { pl, root_len(root), malloc(CL_PATH_MAX), malloc(ELF_HEAD),
			  malloc(sizeof *w.prog), 0 };
	if (!w.path || !w.head || !w.prog)
		w.oom = 1;
	for (int d = 0; d < IMAGEWALK_N_DIRS && !w.oom; d++) {
		memcpy(w.path, root, w.root_len);
		memcpy(w.path + w.root_len, imagewalk_dirs[d], strlen(imagewalk_dirs[d]) + 1);
		walk_dir(&w, 0);
	}
	free(w.prog);
	free(w.head);
	free(w.path);
	return w.oom ? -1 : 0;
}
