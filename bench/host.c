// A minimal host for benchmarks: spawns composable-actor with pipes and measures
//   latency N      : N sequential round trips (send one action, wait for its line), in ns
//   startup N      : N spawns, time from fork to the `ready` line, in ns
//   file PATH ARGS : one run with stdin from PATH, stdout to /dev/null, and ARGS passed on:
//                    prints "ns maxrss_kib"
// and prints one measurement per line on stdout. The host is tiny, so the peak RSS the kernel
// reports for the child is the child's own (a child forked from Python counts Python's pages). Written in C so the figures are the
// process's, not a scripting language's.
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

typedef struct { pid_t pid; int to_child; int from_child; char buf[1 << 16]; size_t len; } child_t;

static void spawn(child_t *c, const char *binary) {
  int in[2], out[2];
  if (pipe(in) || pipe(out)) { perror("pipe"); exit(1); }
  c->pid = fork();
  if (c->pid < 0) { perror("fork"); exit(1); }
  if (c->pid == 0) {
    dup2(in[0], 0); dup2(out[1], 1);
    close(in[0]); close(in[1]); close(out[0]); close(out[1]);
    execl(binary, binary, (char *)NULL);
    perror("exec"); _exit(127);
  }
  close(in[0]); close(out[1]);
  c->to_child = in[1]; c->from_child = out[0]; c->len = 0;
}

// Reads until one full line is buffered, then drops it.
static void read_line(child_t *c) {
  for (;;) {
    char *newline = memchr(c->buf, '\n', c->len);
    if (newline) {
      size_t used = (size_t)(newline - c->buf) + 1;
      memmove(c->buf, newline + 1, c->len - used);
      c->len -= used;
      return;
    }
    ssize_t n = read(c->from_child, c->buf + c->len, sizeof c->buf - c->len);
    if (n <= 0) { fprintf(stderr, "child closed its output\n"); exit(1); }
    c->len += (size_t)n;
  }
}

static void finish(child_t *c) {
  close(c->to_child);
  char sink[4096];
  while (read(c->from_child, sink, sizeof sink) > 0) {}
  close(c->from_child);
  waitpid(c->pid, NULL, 0);
}

int main(int argc, char **argv) {
  if (argc < 4) { fprintf(stderr, "usage: host BINARY latency|startup N | file PATH [ARGS]\n"); return 2; }
  const char *binary = argv[1];
  if (strcmp(argv[2], "file") == 0) {
    long long start = now_ns();
    pid_t pid = fork();
    if (pid == 0) {
      int in = open(argv[3], O_RDONLY), out = open("/dev/null", O_WRONLY);
      if (in < 0 || out < 0) { perror("open"); _exit(127); }
      dup2(in, 0); dup2(out, 1);
      argv[3] = (char *)binary;
      execv(binary, argv + 3);
      perror("exec"); _exit(127);
    }
    int status;
    struct rusage usage;
    wait4(pid, &status, 0, &usage);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) { fprintf(stderr, "run failed\n"); return 1; }
    printf("%lld %ld\n", now_ns() - start, usage.ru_maxrss);
    return 0;
  }
  int count = atoi(argv[3]);
  child_t *c = malloc(sizeof *c);
  if (strcmp(argv[2], "startup") == 0) {
    for (int i = 0; i < count; i++) {
      long long start = now_ns();
      spawn(c, binary);
      read_line(c);
      printf("%lld\n", now_ns() - start);
      finish(c);
    }
    return 0;
  }
  static const char incr[] = "{\"store\":\"primes\",\"action\":\"counter.incrTapped\"}\n";
  static const char decr[] = "{\"store\":\"primes\",\"action\":\"counter.decrTapped\"}\n";
  spawn(c, binary);
  read_line(c);
  long long *samples = malloc(sizeof(long long) * (size_t)count);
  for (int i = 0; i < count; i++) {
    const char *line = (i % 2) ? decr : incr;
    size_t length = (i % 2) ? sizeof decr - 1 : sizeof incr - 1;
    long long start = now_ns();
    if (write(c->to_child, line, length) != (ssize_t)length) { perror("write"); return 1; }
    read_line(c);
    samples[i] = now_ns() - start;
  }
  for (int i = 0; i < count; i++) printf("%lld\n", samples[i]);
  finish(c);
  return 0;
}
