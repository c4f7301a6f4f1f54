/* SPDX-License-Identifier: MIT */
/*
 * verify: `cudaload --verify`.  cuInit needs glibc's libcuda, which this
 * static musl program cannot load, so the verifier is a glibc program of
 * its own (tools/verify/cudaload-verify.c, beside this binary or in
 * ../libexec/cudaload), run in a child with the rest of the command line;
 * then the host's decision prepared with its verdicts, for the programs
 * that bring nothing of their own.  Exits with the verifier's status.
 */
#ifndef CUDALOAD_VERIFY_H
#define CUDALOAD_VERIFY_H

#include "../start/steps.h"

__attribute__((noreturn))
void verify_run(struct start *st);

#endif
