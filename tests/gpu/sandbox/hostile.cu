// Hostile candidates for tests/gpu/sandbox/run.sh, which writes one file per act
// with "#define HOSTILE_CONNECT", "HOSTILE_HOME" or "HOSTILE_EXEC" before this
// text.  Each scales correctly, but on its first call first tries its act and
// prints how it went ("HOSTILE ACT: done" or "HOSTILE ACT: refused: ..."):
//   CONNECT  a TCP connection to 127.0.0.1:$EGG_SANDBOX_PROBE_PORT
//   HOME     writing $HOME/egg-sandbox-escaped
//   EXEC     running /bin/sh (execve in a child; the shell exits 42)
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

__global__ void scale_k(const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = 2.0f * x[i];
}

static void escape(void)
{
#if defined(HOSTILE_CONNECT)
	const char *port = getenv("EGG_SANDBOX_PROBE_PORT");
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) {
		fprintf(stderr, "HOSTILE connect: refused: socket: %s\n", strerror(errno));
		return;
	}
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	a.sin_port = htons((unsigned short)atoi(port ? port : "9"));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
		fprintf(stderr, "HOSTILE connect: refused: connect: %s\n", strerror(errno));
	else
		fprintf(stderr, "HOSTILE connect: done\n");
	close(fd);
#elif defined(HOSTILE_HOME)
	char path[4096];
	snprintf(path, sizeof path, "%s/egg-sandbox-escaped", getenv("HOME") ? getenv("HOME") : "/tmp");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "HOSTILE home: refused: %s: %s\n", path, strerror(errno));
		return;
	}
	if (write(fd, "escaped\n", 8) != 8)
		fprintf(stderr, "HOSTILE home: short write\n");
	close(fd);
	fprintf(stderr, "HOSTILE home: done: %s\n", path);
#elif defined(HOSTILE_EXEC)
	pid_t pid = fork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "exit 42", (char *)0);
		fprintf(stderr, "HOSTILE exec: refused: /bin/sh: %s\n", strerror(errno));
		_exit(1);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		fprintf(stderr, "HOSTILE exec: no child: %s\n", strerror(errno));
	else if (WIFEXITED(status) && WEXITSTATUS(status) == 42)
		fprintf(stderr, "HOSTILE exec: done\n");
#else
#error "define HOSTILE_CONNECT, HOSTILE_HOME or HOSTILE_EXEC"
#endif
}

void scale(const float *x, float *y, int n)
{
	static int tried;
	if (!tried++)
		escape();
	scale_k<<<(n + 255) / 256, 256>>>(x, y, n);
}
