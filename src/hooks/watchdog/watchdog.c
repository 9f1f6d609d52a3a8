/*
 * The hook watchdog as a native thread (src/hooks/deadline.ts loads it through bun:ffi). It does
 * what the JavaScript worker it replaces did, without a second JavaScript VM: sleep until the
 * deadline; unless the main thread has claimed the answer (flag 0 -> 1), claim it (0 -> 2), write
 * the empty answer to stdout whole, append one line to hook.log, mark it written (3) and end the
 * process with status 0. Built for each release target by scripts/watchdog/build.sh.
 */
#ifdef _WIN32
#include <windows.h>
#else
#include <fcntl.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>
#endif

static struct {
  int *flag;
  const char *out;
  int out_len;
  const char *log;
  const char *line;
  int line_len;
  int ms;
} g;

#ifdef _WIN32
static int claim(void) { return InterlockedCompareExchange((volatile LONG *)g.flag, 2, 0) == 0; }

static DWORD WINAPI run(LPVOID arg) {
  (void)arg;
  Sleep((DWORD)g.ms);
  if (!claim()) return 0;
  HANDLE out = GetStdHandle(STD_OUTPUT_HANDLE);
  for (int off = 0, spins = 0; off < g.out_len && spins < 2000;) {
    DWORD n = 0;
    if (WriteFile(out, g.out + off, (DWORD)(g.out_len - off), &n, NULL) && n > 0) off += (int)n;
    else { spins++; Sleep(1); }
  }
  WCHAR path[1024];
  if (MultiByteToWideChar(CP_UTF8, 0, g.log, -1, path, 1024) > 0) {
    HANDLE f = CreateFileW(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL,
                           OPEN_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
    if (f != INVALID_HANDLE_VALUE) {
      DWORD n = 0;
      WriteFile(f, g.line, (DWORD)g.line_len, &n, NULL);
      CloseHandle(f);
    }
  }
  InterlockedExchange((volatile LONG *)g.flag, 3);
  TerminateProcess(GetCurrentProcess(), 0);
  return 0;
}

__declspec(dllexport) int coffer_watchdog(int *flag, const char *out, int out_len, const char *log, const char *line,
                                          int line_len, int ms) {
  g.flag = flag; g.out = out; g.out_len = out_len; g.log = log; g.line = line; g.line_len = line_len; g.ms = ms;
  HANDLE t = CreateThread(NULL, 65536, run, NULL, STACK_SIZE_PARAM_IS_A_RESERVATION, NULL);
  if (t == NULL) return -1;
  CloseHandle(t);
  return 0;
}
#else
static int claim(void) {
  int expected = 0;
  return __atomic_compare_exchange_n(g.flag, &expected, 2, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}

static void *run(void *arg) {
  (void)arg;
  struct timespec ts = {g.ms / 1000, (long)(g.ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {}
  if (!claim()) return NULL;
  for (int off = 0, spins = 0; off < g.out_len && spins < 2000;) {
    ssize_t n = write(1, g.out + off, (size_t)(g.out_len - off));
    if (n > 0) off += (int)n;
    else { spins++; usleep(1000); } /* a non-blocking pipe that is full for a moment */
  }
  int fd = open(g.log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd >= 0) {
    ssize_t n = write(fd, g.line, (size_t)g.line_len);
    (void)n;
    close(fd);
  }
  __atomic_store_n(g.flag, 3, __ATOMIC_SEQ_CST);
  _exit(0);
  return NULL;
}

__attribute__((visibility("default"))) int coffer_watchdog(int *flag, const char *out, int out_len, const char *log,
                                                           const char *line, int line_len, int ms) {
  g.flag = flag; g.out = out; g.out_len = out_len; g.log = log; g.line = line; g.line_len = line_len; g.ms = ms;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return -1;
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 65536);
  pthread_t t;
  int r = pthread_create(&t, &attr, run, NULL);
  pthread_attr_destroy(&attr);
  return r;
}
#endif
