// The daemon's part of a CLI command, without the CLI process (issue 15 item 2; ADR 0012):
// `gcc -O2 -o /tmp/daemon_roundtrip benches/fixed_cost/daemon_roundtrip.c`, then
//   printf '%s\n%s\n' "$LAUNCH_LINE" '{"action":"url","id":"r1"}' |
//     GAP_US=2000 /tmp/daemon_roundtrip 1000 "$AGENT_BROWSER_SOCKET_DIR/<session>.sock"
// where LAUNCH_LINE is the `launch` a Host-style CLI writes ahead of its command (see it with
// `strace -s 2000 -e trace=sendto agent-browser get url`). Each round connects, writes the
// request lines from stdin in one write, reads until one reply per line, and closes, as a CLI
// invocation does; GAP_US sleeps between rounds, so the daemon's threads park as they do between
// an agent's commands. Prints p10/p50/p90 ms.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 3) { fprintf(stderr, "usage: daemon_roundtrip N SOCKET < request-lines\n"); return 2; }
  int n = atoi(argv[1]);
  static char msg[65536];
  size_t len = fread(msg, 1, sizeof msg - 1, stdin);
  int want = 0;
  for (size_t i = 0; i < len; i++) if (msg[i] == '\n') want++;
  if (n <= 0 || want == 0) { fprintf(stderr, "need N > 0 and newline-terminated lines on stdin\n"); return 2; }
  struct sockaddr_un sa = {0};
  sa.sun_family = AF_UNIX;
  strncpy(sa.sun_path, argv[2], sizeof sa.sun_path - 1);
  const char *gap = getenv("GAP_US");
  double *t = malloc(sizeof(double) * n);
  static char buf[1 << 20];
  for (int i = 0; i < n; i++) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (void *)&sa, sizeof sa)) { perror("connect"); return 1; }
    if (write(fd, msg, len) != (ssize_t)len) { perror("write"); return 1; }
    int lines = 0;
    while (lines < want) {
      ssize_t r = read(fd, buf, sizeof buf);
      if (r <= 0) { fprintf(stderr, "the daemon closed the connection after %d replies\n", lines); return 1; }
      for (ssize_t j = 0; j < r; j++) if (buf[j] == '\n') lines++;
    }
    close(fd);
    clock_gettime(CLOCK_MONOTONIC, &b);
    t[i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
    if (gap) usleep(atoi(gap));
  }
  qsort(t, n, sizeof(double), cmp);
  printf("p10 %.3f p50 %.3f p90 %.3f ms\n", t[n / 10], t[n / 2], t[n * 9 / 10]);
  return 0;
}
