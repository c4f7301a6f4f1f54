/* SPDX-License-Identifier: MIT */
/*
 * image: the container's image as the hook may touch it, and the children
 * that read it.
 *
 * The hook runs as root in the container's mount namespace, where the
 * image's author and the user who starts the container shaped what lies
 * under its root: links, volumes of the host's, mounts that propagate.  So
 * the hook writes, makes or mounts only on the root's own mount (by mount
 * identity, not device number: a bind mount of the same disk shares the
 * device), never over a place with a mount of another below it (the
 * driver a device plugin or the container toolkit mounts in), and mounts
 * nothing where the root's mount is shared (the mount would propagate to
 * its peers, the host among them).  The container's /run may also be a
 * tmpfs the runtime made for this container alone (config.json's mounts):
 * the account may go there.
 *
 * What reads the image (the judgement, the host's ldconfig) runs in a child
 * that image_enter puts into a mount namespace of its own, every mount
 * private, the image's kernel file systems and /dev covered by empty
 * read-only tmpfs, every mount nodev and nosuid, pivoted into the image
 * with the host's tree detached, bounded in memory, file size and time,
 * with no_new_privs and no capability but CAP_DAC_READ_SEARCH (an image's
 * files need not admit root without it).  The ld.so.conf that ldconfig
 * would read is checked first (image_conf_sound): every file it includes,
 * however deep, a regular file within a bound, no include loop.
 */
#ifndef CUDALOAD_OCIHOOK_IMAGE_H
#define CUDALOAD_OCIHOOK_IMAGE_H

#include <stdbool.h>
#include <stddef.h>

#define IMAGE_CONF_FILE_MAX (1 << 20)	/* an ld.so.conf file: a few lines in practice */
#define IMAGE_CONF_DEPTH_MAX 8		/* includes within includes */
#define IMAGE_CONF_FILES_MAX 100000
#define IMAGE_CHILD_MEMORY (512L << 20)	/* address space of a child that reads the image */
#define IMAGE_CHILD_FILE (128L << 20)	/* the largest file it may write (ld.so.cache) */

/* One line of /proc/self/mountinfo. */
struct image_mount {
	int id;
	char *point;		/* unescaped, as this process sees it */
	char *type;
	bool shared;		/* "shared:N": mounts under it propagate to peers */
};

struct image {
	int rootfd;		/* O_PATH of the root */
	int root_mnt;		/* the root's mount */
	bool root_shared;
	int run_mnt;		/* a tmpfs at ROOT/run made for this container, or -1 */
	struct image_mount *mounts;
	size_t n_mounts;
	char *mountinfo;	/* the text the mounts point into */
};

/* The image at root (absolute, canonical), its mounts read; run_tmpfs:
 * config.json mounts a tmpfs at /run.  0, or -1 with why. */
int image_open(struct image *img, const char *root, bool run_tmpfs, char *why, size_t cap);

void image_close(struct image *img);

/* Why the directory open at fd is no place to write in (not on the root's
 * own mount, nor on the container's own /run where run is true): a
 * reason, or NULL when it is one. */
const char *image_not_writable(const struct image *img, int fd, bool run);

/* Why the directory open at fd may not be hidden under a mount (not on the
 * root's own mount, the root's mount shared, a mount below it): a reason,
 * or NULL when it may. */
const char *image_not_hideable(const struct image *img, int fd);

/* Is path dir itself or below it (both absolute, as written)? */
bool image_path_within(const char *path, const char *dir);

/* The mount ID of what fd is open on (/proc/self/fdinfo), or -1. */
int image_mount_id(int fd);

/* Every descriptor from 3 on closed but keep (3 or 4; the others of 3
 * and 4 closed too): a directory of the host held open would lead out of
 * the image. */
void image_close_fds(int keep);

/* In a child: into the image at root, as above.  The caller's descriptors
 * other than those it needs must be closed first.  0, or -1 with why. */
int image_enter(const char *root, char *why, size_t cap);

/* The directories ld.so.conf and its includes name, as ldconfig reads them. */
struct image_conf {
	char **dirs;
	size_t n, cap;
};

/* In a child that entered: is the ld.so.conf ldconfig would read sound?
 * NULL, or why not; the directories it names into conf where conf is not
 * NULL (image_conf_free gives them back). */
const char *image_conf_sound(struct image_conf *conf, char *why, size_t cap);

/* Does conf name dir? */
bool image_conf_names(const struct image_conf *conf, const char *dir);

void image_conf_free(struct image_conf *conf);

#endif
