// Lower-overhead timing of whole invocations than Python: `gcc -O2 -o /tmp/spawnbench
// benches/fixed_cost/spawnbench.c`, then e.g. `/tmp/spawnbench 300 /bin/true :: $BIN get url`
// with the session env exported (issue 15 item 2; figures in BENCHMARKS.md).
// spawnbench N cmdA args... [:: cmdB args...]... : posix_spawn each command in turn, N rounds
// (interleaved so load changes hit all alike), stdout to /dev/null; prints p10/p50/p90 ms each.
// A command may start with NAME=VALUE words, as with env(1): they are added to (or replace in)
// that command's environment only, without an extra exec in the timed window.
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <fcntl.h>
#include <unistd.h>
extern char **environ;
static int cmp(const void *a, const void *b) { double x = *(double*)a, y = *(double*)b; return x < y ? -1 : x > y; }
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  char **cmds[16]; int k = 0; cmds[k++] = argv + 2;
  for (int i = 2; i < argc; i++) if (!strcmp(argv[i], "::")) { argv[i] = NULL; cmds[k++] = argv + i + 1; }
  double *t[16]; for (int c = 0; c < k; c++) t[c] = malloc(sizeof(double) * n);
  char **envs[16];
  for (int c = 0; c < k; c++) {
    int extra = 0; while (cmds[c][extra] && strchr(cmds[c][extra], '=')) extra++;
    int base = 0; while (environ[base]) base++;
    char **e = malloc(sizeof(char *) * (base + extra + 1)); int m = 0;
    for (int i = 0; i < base; i++) {
      int replaced = 0;
      for (int j = 0; j < extra; j++) {
        size_t len = strchr(cmds[c][j], '=') - cmds[c][j] + 1;
        if (!strncmp(environ[i], cmds[c][j], len)) replaced = 1;
      }
      if (!replaced) e[m++] = environ[i];
    }
    for (int j = 0; j < extra; j++) e[m++] = cmds[c][j];
    e[m] = NULL; envs[c] = e; cmds[c] += extra;
  }
  posix_spawn_file_actions_t fa; posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  for (int i = 0; i < n; i++) for (int c = 0; c < k; c++) {
    struct timespec a, b; clock_gettime(CLOCK_MONOTONIC, &a);
    pid_t pid; if (posix_spawn(&pid, cmds[c][0], &fa, NULL, cmds[c], envs[c])) { perror("spawn"); return 1; }
    int st; waitpid(pid, &st, 0);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (!WIFEXITED(st) || WEXITSTATUS(st)) { fprintf(stderr, "exit %d (%s)\n", st, cmds[c][0]); return 1; }
    t[c][i] = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  }
  for (int c = 0; c < k; c++) {
    qsort(t[c], n, sizeof(double), cmp);
    printf("p10 %.2f p50 %.2f p90 %.2f ms  ", t[c][n/10], t[c][n/2], t[c][n*9/10]);
    for (char **a = cmds[c]; *a; a++) printf("%s ", *a);
    printf("\n");
  }
  return 0;
}
