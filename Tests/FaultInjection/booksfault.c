// booksfault: an LD_PRELOAD library that fails the N-th file-system call of one kind with an
// injected error, for the I/O-fault sweep of the integration tests (docs/RELIABILITY.md,
// Tests/IntegrationTests/Faults). The tests compile it at test time with the toolchain's clang
// (`FaultShim.library`); it is not part of the package build.
//
// Only calls on files under one directory count: a path argument under it (after the directory
// was resolved), or a descriptor whose /proc/self/fd link is under it. The daemon's socket, log
// and every other descriptor are left alone.
//
// Environment (read once, at the first intercepted call):
//   BOOKSFAULT_DIR      the directory whose files count (required; without it nothing is touched)
//   BOOKSFAULT_CONTROL  the control file, re-read at every counted call; a new text re-arms
//                       (counts restart from zero). Its first words:
//                         "off"                      count nothing
//                         "count"                    log every call, inject nothing
//                         "fail GROUP KIND N"        fail the N-th call of GROUP from now, once
//                         "fail … ; fail …"          up to 4 such faults (e.g. one in a clean-up)
//                       then optionally "thread=NAME" (count only calls on threads named NAME) or
//                       "notthread=NAME" (ignore calls on threads named NAME), e.g. to leave the
//                       watcher thread's re-reads out of a client write's count
//                       GROUP: open read write pwrite fsync fdatasync rename ftruncate close
//                       KIND: EIO ENOSPC EINTR SHORT (SHORT: read/write/pwrite move half the bytes)
//   BOOKSFAULT_LOG      a file every counted call is appended to ("GROUP FUNCTION NUMBER PATH"), and
//                       every injected fault ("FAULT GROUP KIND NUMBER FUNCTION PATH")
//
// Groups and the functions counted in them (the 64-bit and at-variants glibc exports are all
// intercepted; `syscall(SYS_renameat2, …)`, which the daemon uses for RENAME_EXCHANGE, too):
//   open: open open64 openat openat64 creat creat64 mkstemp mkstemp64 mkostemp mkostemp64
//   read: read pread pread64        write: write        pwrite: pwrite pwrite64
//   fsync: fsync   fdatasync: fdatasync   rename: rename renameat renameat2 syscall(renameat2)
//   ftruncate: ftruncate ftruncate64      close: close (the descriptor is closed, as Linux does)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

enum group { G_OPEN, G_READ, G_WRITE, G_PWRITE, G_FSYNC, G_FDATASYNC, G_RENAME, G_FTRUNCATE, G_CLOSE, G_COUNT };
static const char *group_names[G_COUNT] = {
    "open", "read", "write", "pwrite", "fsync", "fdatasync", "rename", "ftruncate", "close",
};
enum kind { K_EIO, K_ENOSPC, K_EINTR, K_SHORT };
static const char *kind_names[] = {"EIO", "ENOSPC", "EINTR", "SHORT"};

enum mode { M_OFF, M_COUNT, M_FAIL };
#define MAX_FAULTS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static long (*real_syscall)(long, ...);
static char dir_given[PATH_MAX];
static char dir_real[PATH_MAX];
static char control_path[PATH_MAX];
static int log_fd = -1;
static int active;

// The armed state (under `lock`).
static struct {
    char text[256];
    int seen;
    char thread[32];  // only count calls on this thread (empty: any)
    char notthread[32];  // never count calls on this thread
    enum mode mode;
    struct {
        int group;
        enum kind kind;
        long n;
        int fired;
    } faults[MAX_FAULTS];
    int nfaults;
    long counts[G_COUNT];
} state;

#define MAX_FDS 65536
static unsigned char tracked[MAX_FDS];  // descriptors opened (through us) on a file under the directory

static long sys_write(int fd, const void *buf, size_t len) { return real_syscall(SYS_write, fd, buf, len); }

static void init(void) {
    real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    const char *dir = getenv("BOOKSFAULT_DIR");
    const char *control = getenv("BOOKSFAULT_CONTROL");
    const char *logp = getenv("BOOKSFAULT_LOG");
    if (!dir || !*dir || !control || !*control || !real_syscall) return;
    snprintf(dir_given, sizeof dir_given, "%s", dir);
    size_t len = strlen(dir_given);
    while (len > 1 && dir_given[len - 1] == '/') dir_given[--len] = 0;
    if (!realpath(dir_given, dir_real)) snprintf(dir_real, sizeof dir_real, "%s", dir_given);
    snprintf(control_path, sizeof control_path, "%s", control);
    if (logp && *logp) {
        log_fd = (int)real_syscall(SYS_openat, AT_FDCWD, logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    }
    active = 1;
}

static int under(const char *prefix, const char *path) {
    size_t n = strlen(prefix);
    return n > 0 && strncmp(path, prefix, n) == 0 && (path[n] == 0 || path[n] == '/');
}

// Whether `path` names a file under the directory (a /proc/self/fd/N link is followed once).
static int path_counts(const char *path) {
    if (!path) return 0;
    if (strncmp(path, "/proc/self/fd/", 14) == 0) {
        char link[PATH_MAX];
        long n = real_syscall(SYS_readlinkat, AT_FDCWD, path, link, sizeof link - 1);
        if (n <= 0) return 0;
        link[n] = 0;
        return under(dir_real, link) || under(dir_given, link);
    }
    return under(dir_given, path) || under(dir_real, path);
}

static int fd_link_counts(int fd) {
    char proc[64], link[PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    long n = real_syscall(SYS_readlinkat, AT_FDCWD, proc, link, sizeof link - 1);
    if (n <= 0) return 0;
    link[n] = 0;
    return under(dir_real, link) || under(dir_given, link);
}

static int fd_counts(int fd) { return fd >= 0 && fd < MAX_FDS && tracked[fd]; }

static void note_opened(int fd) {
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = (unsigned char)fd_link_counts(fd);
}

// Re-reads the control file; a new text (the tests add a generation number) re-arms. Read at
// every counted call, so no change is missed however fast the tests write it. Called with `lock`.
static void refresh_control(void) {
    char text[256] = {0};
    int fd = (int)real_syscall(SYS_openat, AT_FDCWD, control_path, O_RDONLY | O_CLOEXEC);
    long got = fd < 0 ? 0 : real_syscall(SYS_read, fd, text, sizeof text - 1);
    if (fd >= 0) real_syscall(SYS_close, fd);
    text[got > 0 ? got : 0] = 0;
    if (state.seen && strcmp(text, state.text) == 0) return;
    state.seen = 1;
    memcpy(state.text, text, sizeof text);
    memset(state.counts, 0, sizeof state.counts);
    state.nfaults = 0;
    state.mode = M_OFF;
    state.thread[0] = state.notthread[0] = 0;
    for (char *t = strstr(text, "thread="); t; t = strstr(t + 1, "thread=")) {
        int negated = t >= text + 3 && strncmp(t - 3, "not", 3) == 0;
        char *target = negated ? state.notthread : state.thread;
        sscanf(t + 7, "%31s", target);
    }
    char word[32] = {0};
    if (sscanf(text, "%31s", word) == 1 && strcmp(word, "count") == 0) {
        state.mode = M_COUNT;
        return;
    }
    // "fail GROUP KIND N" up to MAX_FAULTS times, separated by ';' (each fires once).
    for (char *spec = text; spec && state.nfaults < MAX_FAULTS; spec = strchr(spec, ';') ? strchr(spec, ';') + 1 : NULL) {
        char group[32] = {0}, kind[32] = {0};
        long n = 0;
        if (sscanf(spec, " fail %31s %31s %ld", group, kind, &n) != 3 || n <= 0) continue;
        int g = -1;
        for (int i = 0; i < G_COUNT; i++)
            if (strcmp(group, group_names[i]) == 0) g = i;
        if (g < 0) continue;
        enum kind k = K_EIO;
        for (int i = 0; i < 4; i++)
            if (strcmp(kind, kind_names[i]) == 0) k = (enum kind)i;
        state.faults[state.nfaults].group = g;
        state.faults[state.nfaults].kind = k;
        state.faults[state.nfaults].n = n;
        state.faults[state.nfaults].fired = 0;
        state.nfaults++;
        state.mode = M_FAIL;
    }
}

// Counts a call of `group`; returns 1 with the kind to inject when this call is the one to fail.
static int decide(int group, const char *function, const char *path, enum kind *kind) {
    int inject = 0;
    char line[PATH_MAX + 128];
    int len = 0;
    pthread_mutex_lock(&lock);
    refresh_control();
    char name[32] = {0};
    if (state.thread[0] || state.notthread[0]) pthread_getname_np(pthread_self(), name, sizeof name);
    int excluded = (state.thread[0] && strcmp(name, state.thread) != 0) ||
                   (state.notthread[0] && strcmp(name, state.notthread) == 0);
    if (state.mode != M_OFF && !excluded) {
        long number = ++state.counts[group];
        for (int i = 0; i < state.nfaults && !inject; i++) {
            if (state.faults[i].fired || state.faults[i].group != group || state.faults[i].n != number) continue;
            state.faults[i].fired = 1;
            inject = 1;
            *kind = state.faults[i].kind;
        }
        if (inject) {
            len = snprintf(line, sizeof line, "FAULT %s %s %ld %s %s\n", group_names[group], kind_names[*kind],
                           number, function, path ? path : "");
        } else {
            len = snprintf(line, sizeof line, "%s %s %ld %s\n", group_names[group], function, number,
                           path ? path : "");
        }
        if (log_fd >= 0 && len > 0) sys_write(log_fd, line, (size_t)(len < (int)sizeof line ? len : (int)sizeof line - 1));
    }
    pthread_mutex_unlock(&lock);
    return inject;
}

static int errno_for(enum kind kind) {
    switch (kind) {
    case K_ENOSPC: return ENOSPC;
    case K_EINTR: return EINTR;
    default: return EIO;
    }
}

#define REAL(type, name, args)                                          \
    static type(*real_##name) args;                                     \
    if (!real_##name) real_##name = (type(*) args)dlsym(RTLD_NEXT, #name)

static const char *fd_path(int fd, char *buf, size_t size) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    long n = real_syscall(SYS_readlinkat, AT_FDCWD, proc, buf, size - 1);
    buf[n > 0 ? n : 0] = 0;
    return buf;
}

// MARK: open

static int fail_open(const char *function, const char *path) {
    pthread_once(&once, init);
    enum kind kind;
    if (active && path_counts(path) && decide(G_OPEN, function, path, &kind) && kind != K_SHORT) {
        errno = errno_for(kind);
        return 1;
    }
    return 0;
}

static mode_t mode_argument(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

#define OPEN_LIKE(name)                                            \
    int name(const char *path, int flags, ...) {                   \
        va_list ap;                                                \
        va_start(ap, flags);                                       \
        mode_t mode = mode_argument(flags, ap);                    \
        va_end(ap);                                                \
        REAL(int, name, (const char *, int, ...));                 \
        if (fail_open(#name, path)) return -1;                     \
        int fd = real_##name(path, flags, mode);                   \
        if (active) note_opened(fd);                               \
        return fd;                                                 \
    }
OPEN_LIKE(open)
OPEN_LIKE(open64)

#define OPENAT_LIKE(name)                                          \
    int name(int dirfd, const char *path, int flags, ...) {        \
        va_list ap;                                                \
        va_start(ap, flags);                                       \
        mode_t mode = mode_argument(flags, ap);                    \
        va_end(ap);                                                \
        REAL(int, name, (int, const char *, int, ...));            \
        if (fail_open(#name, path)) return -1;                     \
        int fd = real_##name(dirfd, path, flags, mode);            \
        if (active) note_opened(fd);                               \
        return fd;                                                 \
    }
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

#define CREAT_LIKE(name)                                           \
    int name(const char *path, mode_t mode) {                      \
        REAL(int, name, (const char *, mode_t));                   \
        if (fail_open(#name, path)) return -1;                     \
        int fd = real_##name(path, mode);                          \
        if (active) note_opened(fd);                               \
        return fd;                                                 \
    }
CREAT_LIKE(creat)
CREAT_LIKE(creat64)

#define MKSTEMP_LIKE(name)                                         \
    int name(char *template) {                                     \
        REAL(int, name, (char *));                                 \
        if (fail_open(#name, template)) return -1;                 \
        int fd = real_##name(template);                            \
        if (active) note_opened(fd);                               \
        return fd;                                                 \
    }
MKSTEMP_LIKE(mkstemp)
MKSTEMP_LIKE(mkstemp64)

#define MKOSTEMP_LIKE(name)                                        \
    int name(char *template, int flags) {                          \
        REAL(int, name, (char *, int));                            \
        if (fail_open(#name, template)) return -1;                 \
        int fd = real_##name(template, flags);                     \
        if (active) note_opened(fd);                               \
        return fd;                                                 \
    }
MKOSTEMP_LIKE(mkostemp)
MKOSTEMP_LIKE(mkostemp64)

// MARK: descriptor calls

// Decides for a call on `fd`; returns 1 with the kind when it is to fail.
static int fd_decide(int group, const char *function, int fd, enum kind *kind) {
    pthread_once(&once, init);
    if (!active || !fd_counts(fd)) return 0;
    char path[PATH_MAX];
    return decide(group, function, fd_path(fd, path, sizeof path), kind);
}

#define TRANSFER(name, group, type, ...)                                       \
    enum kind kind;                                                            \
    REAL(ssize_t, name, type);                                                 \
    if (fd_decide(group, #name, fd, &kind)) {                                  \
        if (kind == K_SHORT && count >= 2) {                                   \
            count /= 2;                                                        \
        } else if (kind != K_SHORT) {                                          \
            errno = errno_for(kind);                                           \
            return -1;                                                         \
        }                                                                      \
    }                                                                          \
    return real_##name(__VA_ARGS__)

ssize_t read(int fd, void *buf, size_t count) { TRANSFER(read, G_READ, (int, void *, size_t), fd, buf, count); }
ssize_t pread(int fd, void *buf, size_t count, off_t offset) {
    TRANSFER(pread, G_READ, (int, void *, size_t, off_t), fd, buf, count, offset);
}
ssize_t pread64(int fd, void *buf, size_t count, off64_t offset) {
    TRANSFER(pread64, G_READ, (int, void *, size_t, off64_t), fd, buf, count, offset);
}
ssize_t write(int fd, const void *buf, size_t count) {
    TRANSFER(write, G_WRITE, (int, const void *, size_t), fd, buf, count);
}
ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset) {
    TRANSFER(pwrite, G_PWRITE, (int, const void *, size_t, off_t), fd, buf, count, offset);
}
ssize_t pwrite64(int fd, const void *buf, size_t count, off64_t offset) {
    TRANSFER(pwrite64, G_PWRITE, (int, const void *, size_t, off64_t), fd, buf, count, offset);
}

#define SIMPLE(name, group, ...)                                     \
    enum kind kind;                                                  \
    if (fd_decide(group, #name, fd, &kind) && kind != K_SHORT) {     \
        errno = errno_for(kind);                                     \
        return -1;                                                   \
    }                                                                \
    return real_##name(__VA_ARGS__)

int fsync(int fd) {
    REAL(int, fsync, (int));
    SIMPLE(fsync, G_FSYNC, fd);
}
int fdatasync(int fd) {
    REAL(int, fdatasync, (int));
    SIMPLE(fdatasync, G_FDATASYNC, fd);
}
int ftruncate(int fd, off_t length) {
    REAL(int, ftruncate, (int, off_t));
    SIMPLE(ftruncate, G_FTRUNCATE, fd, length);
}
int ftruncate64(int fd, off64_t length) {
    REAL(int, ftruncate64, (int, off64_t));
    SIMPLE(ftruncate64, G_FTRUNCATE, fd, length);
}

int close(int fd) {
    REAL(int, close, (int));
    enum kind kind;
    int inject = fd_decide(G_CLOSE, "close", fd, &kind) && kind != K_SHORT;
    if (fd >= 0 && fd < MAX_FDS) tracked[fd] = 0;
    int result = real_close(fd);  // Linux releases the descriptor even when close reports an error
    if (inject) {
        errno = errno_for(kind);
        return -1;
    }
    return result;
}

// MARK: rename

static int fail_rename(const char *function, const char *from, const char *to) {
    pthread_once(&once, init);
    enum kind kind;
    if (active && (path_counts(from) || path_counts(to)) && decide(G_RENAME, function, to, &kind) &&
        kind != K_SHORT) {
        errno = errno_for(kind);
        return 1;
    }
    return 0;
}

int rename(const char *from, const char *to) {
    REAL(int, rename, (const char *, const char *));
    if (fail_rename("rename", from, to)) return -1;
    return real_rename(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to) {
    REAL(int, renameat, (int, const char *, int, const char *));
    if (fail_rename("renameat", from, to)) return -1;
    return real_renameat(fromfd, from, tofd, to);
}

int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned int flags) {
    REAL(int, renameat2, (int, const char *, int, const char *, unsigned int));
    if (fail_rename("renameat2", from, to)) return -1;
    return real_renameat2(fromfd, from, tofd, to, flags);
}

long syscall(long number, ...) {
    va_list ap;
    va_start(ap, number);
    long a = va_arg(ap, long), b = va_arg(ap, long), c = va_arg(ap, long);
    long d = va_arg(ap, long), e = va_arg(ap, long), f = va_arg(ap, long);
    va_end(ap);
    pthread_once(&once, init);
    if (!real_syscall) real_syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
    if (number == SYS_renameat2 && fail_rename("syscall(renameat2)", (const char *)b, (const char *)d)) return -1;
    return real_syscall(number, a, b, c, d, e, f);
}
