// SPDX-License-Identifier: GPL-2.0
/*
 * cachefilesd-mini DIR TAG: a minimal cachefiles daemon for the end-to-end
 * boot.  It speaks the /dev/cachefiles command protocol
 * (Documentation/filesystems/caching/cachefiles.rst): "dir", "tag", the
 * culling limits, then "bind".  Once the cache is bound it forks: the
 * parent exits 0 (so the caller knows the cache is up) and the child keeps
 * the file descriptor open (closing it withdraws the cache), reading the
 * cache's status whenever the kernel signals a change.  It never culls: the
 * test cache is made large enough for the test files.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;

static void cmd(const char *fmt, const char *arg)
{
	char buf[4096];
	int n;

	n = snprintf(buf, sizeof(buf), fmt, arg);
	if (n < 0 || n >= (int)sizeof(buf)) {
		fprintf(stderr, "cachefilesd-mini: command too long\n");
		exit(1);
	}
	if (write(fd, buf, n) != n) {
		fprintf(stderr, "cachefilesd-mini: '%s' failed: %s\n",
			buf, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct pollfd pfd;
	char status[256];
	ssize_t n;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: cachefilesd-mini DIR TAG\n");
		return 2;
	}
	fd = open("/dev/cachefiles", O_RDWR);
	if (fd < 0) {
		perror("cachefilesd-mini: /dev/cachefiles");
		return 1;
	}
	cmd("dir %s", argv[1]);
	cmd("tag %s", argv[2]);
	cmd("brun 10%%%s", "");
	cmd("bcull 7%%%s", "");
	cmd("bstop 3%%%s", "");
	cmd("frun 10%%%s", "");
	cmd("fcull 7%%%s", "");
	cmd("fstop 3%%%s", "");
	cmd("bind%s", "");

	n = read(fd, status, sizeof(status) - 1);
	if (n < 0) {
		perror("cachefilesd-mini: reading the cache state");
		return 1;
	}
	status[n] = 0;
	printf("cachefilesd-mini: bound %s (tag %s): %s\n", argv[1], argv[2],
	       status);
	fflush(stdout);

	pid = fork();
	if (pid < 0) {
		perror("cachefilesd-mini: fork");
		return 1;
	}
	if (pid > 0)
		return 0;

	setsid();
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			break;
		n = read(fd, status, sizeof(status) - 1);
		if (n < 0)
			break;
		status[n] = 0;
		/* "cull=1" asks for culling, which we do not do: don't spin. */
		if (strstr(status, "cull=1"))
			sleep(1);
	}
	perror("cachefilesd-mini: /dev/cachefiles");
	return 1;
}
