/* SPDX-License-Identifier: MIT */
/*
 * ldcache: the entries of ld.so.cache for one soname.
 *
 * ld.so takes a library it finds nowhere else from /etc/ld.so.cache, which
 * ldconfig builds from /etc/ld.so.conf and its includes: an entry naming a
 * compat directory (the container toolkit's 00-compat-<uuid>.conf, a
 * vLLM-style image's cuda-compat.conf) is a libcuda the process can reach.
 * Both layouts glibc's ldconfig writes are read (glibc elf/dl-cache.h): the
 * new one ("glibc-ld.so.cache1.1", the default since 2.32) and the old one
 * that carries the new one after its own entries ("ld.so-1.7.0", the
 * default up to 2.31, JetPack 5).  String offsets are from the new
 * header.  Every offset is checked against the file's size; a damaged file
 * gives what could be read up to the damage.
 *
 * The reader is linear in the file's size (a file under a root is anyone's:
 * an image's, CUDALOAD_ROOT's): each entry costs a compare of the soname's
 * length, and only the first LDCACHE_MAX_MATCHES entries for the soname and
 * machine have their path read.  ld.so takes the first of them (glibc
 * elf/dl-cache.c); real caches have one or two.
 */
#ifndef CUDALOAD_LDCACHE_H
#define CUDALOAD_LDCACHE_H

#include <stddef.h>

#define LDCACHE_MAX_MATCHES 16

/* Calls fn with the path of each entry for soname built for machine (an
 * EM_* value: the entry's architecture flags must match; other machines
 * are taken as they come), in the cache's order, of the first
 * LDCACHE_MAX_MATCHES such entries.  soname NULL: every entry, of any
 * soname, whose path is shorter than PATH_MAX.  data (size bytes) is the
 * file.  Returns how many entries were given, or -1 when data is no cache. */
int ldcache_scan(const unsigned char *data, size_t size, const char *soname, int machine,
		 void (*fn)(const char *path, void *arg), void *arg);

/* The same for ROOT/etc/ld.so.cache, mapped read-only: open, fstat, mmap,
 * close, munmap.  -1 when there is none or it cannot be read. */
int ldcache_find(const char *root, const char *soname, int machine,
		 void (*fn)(const char *path, void *arg), void *arg);

#endif
