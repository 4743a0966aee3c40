// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-read FILE [OFFSET LENGTH]: write FILE (or LENGTH bytes of it from
 * OFFSET) to stdout, reading it only through a shared read-only mapping,
 * so the pages come in through the filesystem's fault and readahead paths.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	unsigned long long off = 0, len, start;
	long page = sysconf(_SC_PAGESIZE);
	struct stat st;
	char *map;
	size_t done;
	ssize_t n;
	int fd;

	if (argc != 2 && argc != 4) {
		fprintf(stderr, "usage: mmap-read FILE [OFFSET LENGTH]\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	len = st.st_size;
	if (argc == 4) {
		off = strtoull(argv[2], NULL, 0);
		len = strtoull(argv[3], NULL, 0);
		if (off > (unsigned long long)st.st_size ||
		    len > st.st_size - off) {
			fprintf(stderr, "%s: range beyond EOF\n", argv[1]);
			return 1;
		}
	}
	if (len == 0)
		return 0;
	start = off & ~(unsigned long long)(page - 1);
	map = mmap(NULL, off - start + len, PROT_READ, MAP_SHARED, fd, start);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (done = 0; done < len; done += n) {
		n = write(1, map + (off - start) + done, len - done);
		if (n <= 0) {
			perror("write");
			return 1;
		}
	}
	return 0;
}
