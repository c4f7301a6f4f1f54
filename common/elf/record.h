/* SPDX-License-Identifier: MIT */
/*
 * record: how cudaload-patch remembers a program's original interpreter.
 *
 * The kernel reads PT_INTERP only up to its first NUL (fs/binfmt_elf.c), so
 * the bytes after it are free.  A patched program's PT_INTERP is
 *
 *     <cudaload path> NUL RECORD_MAGIC <original interpreter> NUL [padding NULs]
 *
 * which the loader reads straight from the mapped program, with no file I/O,
 * and the patcher uses to restore the file.
 */
#ifndef CUDALOAD_RECORD_H
#define CUDALOAD_RECORD_H

#define RECORD_MAGIC "cudaload-orig:"

#endif
