// A slow disk for benchmark experiments: an LD_PRELOAD library that makes every
// fsync and fdatasync of a process take FEIRA_SLOW_SYNC_MS longer (after the
// real call), as on a cloud block device. SQLite's WAL checkpoints sync twice,
// so this shows what the quote path does where a checkpoint is slow, on a host
// whose own disk syncs in a fraction of a millisecond (BENCHMARKS.md, "Shipping
// quote, third pass").
//
//   gcc -shared -fPIC -O2 -o /tmp/slow-sync.so bench/tools/slow-sync.c -ldl
//   LD_PRELOAD=/tmp/slow-sync.so FEIRA_SLOW_SYNC_MS=25 npm run bench -- --only quote
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static void wait_configured(void) {
  const char *value = getenv("FEIRA_SLOW_SYNC_MS");
  long ns = value ? atol(value) * 1000000L : 0;
  struct timespec left = {ns / 1000000000L, ns % 1000000000L};
  while (ns > 0 && nanosleep(&left, &left) != 0) {
  }
}

int fsync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
  int result = real(fd);
  wait_configured();
  return result;
}

int fdatasync(int fd) {
  static int (*real)(int);
  if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
  int result = real(fd);
  wait_configured();
  return result;
}
