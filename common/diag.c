/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool diag_on;
static const char *program;
static int pid;

void diag_set_program(const char *name)
{
	const char *slash = name ? strrchr(name, '/') : NULL;
	program = slash && slash[1] ? slash + 1 : name;
}

void diag(const char *fmt, ...)
{
	if (!diag_on)
		return;
	char line[1024];
	if (!pid)
		pid = (int)getpid();	/* only when tracing: one system call */
	int n = snprintf(line, sizeof line, "cudaload[%d]%s%.64s: ", pid, program ? " " : "",
			 program ? program : "");
	va_list ap;
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		return;
	size_t len = (size_t)n + ((size_t)m < sizeof line - (size_t)n - 1 ? (size_t)m
						: sizeof line - (size_t)n - 2);
	line[len++] = '\n';
	/* one write per line so traces of parallel processes do not interleave */
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}
