/* SPDX-License-Identifier: MIT */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "utf8.h"

bool diag_on;
static const char *program;
static int pid;

void diag_set_program(const char *name)
{
	const char *slash = name ? strrchr(name, '/') : NULL;
	program = slash && slash[1] ? slash + 1 : name;
}

/* The line, formatted, then written in its printable form (utf8.h): the
 * names in it are the image's and the user's, whose bytes could drive the
 * terminal or forge a line.  Apart from diag, whose frame every start
 * enters. */
__attribute__((noinline, format(printf, 1, 0)))
static void diag_line(const char *fmt, va_list ap)
{
	char raw[1024], line[1024];
	if (!pid)
		pid = (int)getpid();	/* only when tracing: one system call */
	int n = snprintf(raw, sizeof raw, "cudaload[%d]%s%.64s: ", pid, program ? " " : "",
			 program ? program : "");
	int m = vsnprintf(raw + n, sizeof raw - (size_t)n, fmt, ap);
	if (m < 0)
		return;
	size_t raw_len = (size_t)n + ((size_t)m < sizeof raw - (size_t)n ? (size_t)m
							       : sizeof raw - (size_t)n - 1);
	size_t len = utf8_text_into(line, sizeof line - 1, raw, raw_len);
	line[len++] = '\n';
	/* one write per line so traces of parallel processes do not interleave */
	if (write(STDERR_FILENO, line, len) < 0)
		return;
}

void diag(const char *fmt, ...)
{
	if (!diag_on)
		return;
	va_list ap;
	va_start(ap, fmt);
	diag_line(fmt, ap);
	va_end(ap);
}
