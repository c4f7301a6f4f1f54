/* SPDX-License-Identifier: MIT */
#include "replace.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "../../common/base/atomicfile.h"

/* Enough for "\177ELF" and "#!" */
#define MAGIC_LEN 4

/* n bytes at off into p; 0, or -1 with why (end of file included). */
static int read_at(int fd, unsigned char *p, size_t n, size_t off, char *why, size_t cap)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(fd, p + got, n - got, (off_t)(off + got));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return snprintf(why, cap, "cannot read: %s", strerror(errno)), -1;
		if (r == 0)
			return snprintf(why, cap, "it got shorter while being read (truncated by another "
				       "process?)"), -1;
		got += (size_t)r;
	}
	return 0;
}

unsigned char *replace_read(int fd, const struct stat *st, size_t *len, char *why, size_t cap)
{
	size_t want = (size_t)st->st_size;
	if (st->st_size < 0 || (off_t)want != st->st_size || want == (size_t)-1) {
		snprintf(why, cap, "too large to read");
		return NULL;
	}
	unsigned char *img = malloc(want + 1);
	if (!img) {
		snprintf(why, cap, "out of memory (%zu bytes)", want);
		return NULL;
	}
	size_t head = want < MAGIC_LEN ? want : MAGIC_LEN;
	if (read_at(fd, img, head, 0, why, cap) < 0) {
		free(img);
		return NULL;
	}
	/* nothing past the magic matters in a file that is not ELF */
	if (head == MAGIC_LEN && memcmp(img, "\177ELF", 4) != 0)
		want = head;
	if (read_at(fd, img + head, want - head, head, why, cap) < 0) {
		free(img);
		return NULL;
	}
	img[want] = 0;
	*len = want;
	return img;
}

static bool same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* "append-only" or "immutable" when fd's inode flags say it is, else NULL
 * (also where the file system keeps no such flags). */
static const char *fixed_flag(int fd)
{
	int flags = 0;
	if (ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0)
		return NULL;
	return flags & FS_APPEND_FL ? "append-only" : flags & FS_IMMUTABLE_FL ? "immutable" : NULL;
}

/* fixed_flag of the directory open at dirfd (dirst its fstat); a walk
 * meets one directory many times in a row, so the last answer is kept. */
static const char *dir_fixed_flag(int dirfd, const struct stat *dirst)
{
	static dev_t last_dev;
	static ino_t last_ino;
	static bool known;
	static const char *last_flag;
	if (known && dirst->st_dev == last_dev && dirst->st_ino == last_ino)
		return last_flag;
	last_flag = fixed_flag(dirfd);
	last_dev = dirst->st_dev;
	last_ino = dirst->st_ino;
	known = true;
	return last_flag;
}

int replace_hold(struct held *h, int fd, const struct stat *st, int dirfd, const struct stat *dirst,
		 char *why, size_t cap)
{
	const char *flag = fixed_flag(fd);
	if (flag) {
		snprintf(why, cap, "it is %s (chattr): it cannot be replaced", flag);
		return -1;
	}
	flag = dir_fixed_flag(dirfd, dirst);
	if (flag) {
		snprintf(why, cap, "its directory is %s (chattr): a new file there could neither "
			 "replace it nor be removed again", flag);
		return -1;
	}
	h->fd = fd;
	h->st = *st;
	h->leased = fcntl(fd, F_SETLEASE, F_RDLCK) == 0;
	if (!h->leased && errno == EAGAIN) {
		snprintf(why, cap, "another process has it open for writing");
		return -1;
	}
	/* EACCES (neither owner nor CAP_LEASE), EINVAL (no leases on this file
	 * system): the identity checks still hold it */
	struct stat now;
	if (fstat(fd, &now) < 0 || !same_file(&now, st)) {
		replace_release(h);
		snprintf(why, cap, "it changed while being read");
		return -1;
	}
	return 0;
}

int replace_still_held(const struct held *h, int dirfd, const char *name, char *why, size_t cap)
{
	struct stat now;
	if (h->leased && fcntl(h->fd, F_GETLEASE) != F_RDLCK) {
		snprintf(why, cap, "another process opened it for writing meanwhile");
		return -1;
	}
	/* the name first: a rename over it also changes the old file's ctime */
	if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) < 0 || now.st_dev != h->st.st_dev ||
	    now.st_ino != h->st.st_ino) {
		snprintf(why, cap, "it was replaced meanwhile (an upgrade?)");
		return -1;
	}
	if (fstat(h->fd, &now) < 0 || !same_file(&now, &h->st)) {
		snprintf(why, cap, "it was written to meanwhile");
		return -1;
	}
	return 0;
}

void replace_release(struct held *h)
{
	if (h->leased)
		fcntl(h->fd, F_SETLEASE, F_UNLCK);
	h->leased = false;
}

/* The registered temporaries, for the signal handler: a slot holds a name
 * (and its directory) from its creation until it is renamed or removed. */
#define SLOTS 1024
static struct {
	volatile int dirfd;
	char *volatile name;
} slots[SLOTS];

static int slot_of(int dirfd, const char *tmp)
{
	for (int i = 0; i < SLOTS; i++)
		if (slots[i].name && slots[i].dirfd == dirfd && strcmp(slots[i].name, tmp) == 0)
			return i;
	return -1;
}

static void forget(int dirfd, const char *tmp)
{
	int i = slot_of(dirfd, tmp);
	if (i >= 0) {
		char *name = slots[i].name;
		slots[i].name = NULL;
		free(name);
	}
}

bool replace_is_temp(const char *name)
{
	return atomic_is_temp(name);
}

int replace_make_temp(int dirfd, const char *name, char *tmp, size_t cap, char *why, size_t whycap)
{
	char made[NAME_MAX + 1];
	if (atomic_temp_name(name, made, sizeof made) < 0 || strlen(made) >= cap) {
		snprintf(why, whycap, "its name is too long for a temporary file beside it");
		return -1;
	}
	int free_slot = -1;
	for (int i = 0; i < SLOTS && free_slot < 0; i++)
		if (!slots[i].name)
			free_slot = i;
	char *reg = free_slot >= 0 ? strdup(made) : NULL;
	if (!reg) {
		snprintf(why, whycap, "out of memory");
		return -1;
	}
	/* Registered before it exists, and made in the registered buffer: a
	 * signal at any moment finds the name (or a name no file has). */
	slots[free_slot].dirfd = dirfd;
	slots[free_slot].name = reg;
	int fd = atomic_create(dirfd, reg);
	if (fd < 0) {
		snprintf(why, whycap, "cannot create a file beside it: %s", strerror(errno));
		forget(dirfd, reg);
		return -1;
	}
	/* Ours alone from here: a later run removes it only while nobody
	 * holds this lock (a run that was killed).  Shared, so that the
	 * descriptor that keeps it (replace_lock_again) may hold it too. */
	if (flock(fd, LOCK_SH | LOCK_NB) < 0) {
		snprintf(why, whycap, "cannot lock the file beside it: %s", strerror(errno));
		close(fd);
		unlinkat(dirfd, reg, 0);
		forget(dirfd, reg);
		return -1;
	}
	strcpy(tmp, reg);
	return fd;
}

int replace_lock_again(int dirfd, const char *tmp)
{
	/* by name, as the rename will be: the directory is the caller's */
	int ro = openat(dirfd, tmp, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (ro < 0)
		return -1;
	if (flock(ro, LOCK_SH | LOCK_NB) < 0) {
		int e = errno;
		close(ro);
		errno = e;
		return -1;
	}
	return ro;
}

int replace_commit(int dirfd, const char *tmp, const char *name)
{
	/* a signal between the two removes a name no file has any more; a
	 * failed rename removes the temporary (the caller's discard finds none) */
	int r = atomic_rename(dirfd, tmp, name);
	int e = errno;
	if (r == 0)
		forget(dirfd, tmp);
	errno = e;
	return r;
}

int replace_discard(int dirfd, const char *tmp, char *why, size_t cap)
{
	int r = unlinkat(dirfd, tmp, 0);
	if (r < 0 && errno != ENOENT) {
		snprintf(why, cap, "%s", strerror(errno));
		forget(dirfd, tmp);
		return -1;
	}
	forget(dirfd, tmp);
	return 0;
}

int replace_remove_stale(int dirfd, const char *name, char *why, size_t cap)
{
	if (!replace_is_temp(name))
		return 0;
	int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	struct stat st, now;
	if (fd < 0)
		return 0;	/* a link, gone, or not ours to read */
	int r = 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
	    st.st_uid == geteuid() && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st.st_dev &&
	    now.st_ino == st.st_ino) {
		/* nobody writes it, and the name is still that file */
		if (unlinkat(dirfd, name, 0) == 0)
			r = 1;
		else if (errno != ENOENT)
			r = -1, snprintf(why, cap, "%s", strerror(errno));
	}
	close(fd);
	return r;
}

static void on_fatal_signal(int sig)
{
	for (int i = 0; i < SLOTS; i++)
		if (slots[i].name)
			unlinkat(slots[i].dirfd, slots[i].name, 0);
	signal(sig, SIG_DFL);
	raise(sig);
}

void replace_install_handlers(void)
{
	static const int fatal[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_fatal_signal;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		sigaction(fatal[i], &sa, NULL);
	signal(SIGIO, SIG_IGN);
}
