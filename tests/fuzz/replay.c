/* SPDX-License-Identifier: MIT */
/* Replays fuzz inputs through one target without libFuzzer: every file named
 * or found (one level) in a directory named on the command line.  Used by
 * `make check` under ASan and UBSan; prints "N inputs". */
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>

#include "fuzz.h"

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long count = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			perror(argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				return 1;
			count++;
			continue;
		}
		DIR *d = opendir(argv[i]);
		for (struct dirent *e; d && (e = readdir(d));) {
			char path[4096];
			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
			if (run_file(path) < 0)
				return 1;
			count++;
		}
		if (d)
			closedir(d);
	}
	printf("%lu inputs\n", count);
	return 0;
}
