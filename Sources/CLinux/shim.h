#ifndef BOOKS_CLINUX_SHIM_H
#define BOOKS_CLINUX_SHIM_H
// Linux APIs that Glibc's Swift overlay lacks (no _GNU_SOURCE: defining it breaks the build).
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/un.h>
#include <sys/types.h>
#include <unistd.h>
#include <fcntl.h>
#include <errno.h>
#include <stddef.h>
#include <malloc.h>
#include <dirent.h>
#include <string.h>
#include <signal.h>

struct books_ucred { pid_t pid; uid_t uid; gid_t gid; };

#ifndef SO_PEERCRED
#define SO_PEERCRED 17
#endif

/// Reads the peer credentials of a connected Unix socket. Returns 0 on success, -1 with errno set.
static inline int books_peer_credentials(int fd, struct books_ucred *out) {
    socklen_t len = sizeof(*out);
    return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, out, &len);
}

int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);

/// accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC.
static inline int books_accept_nonblocking(int fd) {
    return accept4(fd, 0, 0, 04000 /* SOCK_NONBLOCK */ | 02000000 /* SOCK_CLOEXEC */);
}

/// Copies `path` into a sockaddr_un; returns the address length, or -1 when the path is too long.
static inline int books_make_sockaddr_un(const char *path, struct sockaddr_un *addr) {
    size_t n = strlen(path);
    memset(addr, 0, sizeof(*addr));
    addr->sun_family = AF_UNIX;
    if (n >= sizeof(addr->sun_path)) return -1;
    memcpy(addr->sun_path, path, n);
    return (int)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/// The `f_type` of the filesystem holding `path`, or -1 with errno set.
static inline long books_filesystem_type(const char *path) {
    struct statfs s;
    if (statfs(path, &s) != 0) return -1;
    return (long)s.f_type;
}
#include <sys/prctl.h>

/// Names the calling thread (visible in `top -H`, `/proc/PID/task/TID/comm`); at most 15 bytes are kept.
static inline int books_set_current_thread_name(const char *name) {
    return prctl(PR_SET_NAME, (unsigned long)name, 0, 0, 0);
}

/// The calling thread's name into `buffer` (at least 16 bytes, NUL-terminated); 0 or -1/errno.
static inline int books_get_current_thread_name(char *buffer) {
    return prctl(PR_GET_NAME, (unsigned long)buffer, 0, 0, 0);
}
#include <sys/syscall.h>

/// Atomically exchanges the directory entries `a` and `b` (renameat2 RENAME_EXCHANGE); -1/errno
/// (EINVAL or ENOSYS where the file system or kernel does not support it).
static inline int books_rename_exchange(const char *a, const char *b) {
#ifdef SYS_renameat2
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 1 << 1 /* RENAME_EXCHANGE */);
#else
    errno = ENOSYS;
    return -1;
#endif
}

#include <linux/stat.h>

/// The birth (creation) time of the open file `fd` (statx with STATX_BTIME): 0 with `*seconds` and
/// `*nanoseconds` set, or -1 with errno set (ENOSYS without statx, EOPNOTSUPP where the file
/// system does not record it).
static inline int books_birth_time(int fd, long long *seconds, unsigned int *nanoseconds) {
#ifdef SYS_statx
    struct statx s;
    memset(&s, 0, sizeof s);
    if (syscall(SYS_statx, fd, "", 0x1000 /* AT_EMPTY_PATH */, STATX_BTIME, &s) != 0) return -1;
    if (!(s.stx_mask & STATX_BTIME)) {
        errno = EOPNOTSUPP;
        return -1;
    }
    *seconds = (long long)s.stx_btime.tv_sec;
    *nanoseconds = s.stx_btime.tv_nsec;
    return 0;
#else
    errno = ENOSYS;
    return -1;
#endif
}

/// File leases (fcntl F_SETLEASE/F_GETLEASE, Linux-specific, hidden without _GNU_SOURCE).
#define BOOKS_F_SETLEASE 1024
#define BOOKS_F_GETLEASE 1025

/// Takes a read lease on `fd` (opened read-only): 0, or -1 with errno EAGAIN when some process has
/// the file open for writing, EACCES when the caller neither owns the file nor has CAP_LEASE,
/// EINVAL where the file system has no leases. While it is held, an open of the file for writing
/// (or a truncate) breaks it and waits until it is released.
static inline int books_take_read_lease(int fd) { return fcntl(fd, BOOKS_F_SETLEASE, F_RDLCK); }

/// Releases the lease on `fd`; a writer waiting for it proceeds.
static inline int books_release_lease(int fd) { return fcntl(fd, BOOKS_F_SETLEASE, F_UNLCK); }

/// 1 while the read lease on `fd` is held and no writer is breaking it, else 0.
static inline int books_read_lease_is_intact(int fd) { return fcntl(fd, BOOKS_F_GETLEASE) == F_RDLCK; }

/// A lease break is announced with SIGIO, whose default action ends the process: ignore it
/// unless the process installed a handler of its own.
static inline void books_ignore_sigio_if_default(void) {
    struct sigaction current;
    if (sigaction(SIGIO, NULL, &current) == 0 && current.sa_handler == SIG_DFL) {
        struct sigaction ignore;
        memset(&ignore, 0, sizeof ignore);
        ignore.sa_handler = SIG_IGN;
        sigaction(SIGIO, &ignore, NULL);
    }
}

/// Fixes glibc's mmap threshold (disabling its adaptive growth); returns 1 on success.
static inline int books_set_mmap_threshold(int bytes) { return mallopt(M_MMAP_THRESHOLD, bytes); }

/// The entry's name. (Copying `d_name` as a whole reads past the end of short entries: readdir's
/// buffer holds only `d_reclen` bytes of each, so always read the name through this pointer.)
static inline const char *books_dirent_name(const struct dirent *entry) { return entry->d_name; }

#include <sys/xattr.h>

/// The names of the extended attributes of `path` (not followed), NUL-separated, into `list`
/// (`size` 0: the size needed); -1 with errno set.
static inline long books_llistxattr(const char *path, char *list, size_t size) {
    return (long)llistxattr(path, list, size);
}

/// The value of the extended attribute `name` of `path` (not followed); -1 with errno set.
static inline long books_lgetxattr(const char *path, const char *name, void *value, size_t size) {
    return (long)lgetxattr(path, name, value, size);
}

/// The value of the extended attribute `name` of the open file `fd`; -1 with errno set.
static inline long books_fgetxattr(int fd, const char *name, void *value, size_t size) {
    return (long)fgetxattr(fd, name, value, size);
}

/// Sets the extended attribute `name` of the open file `fd`; 0, or -1 with errno set.
static inline int books_fsetxattr(int fd, const char *name, const void *value, size_t size) {
    return fsetxattr(fd, name, value, size, 0);
}

/// The value of the extended attribute `name` of `path` (followed); -1 with errno set.
static inline long books_getxattr(const char *path, const char *name, void *value, size_t size) {
    return (long)getxattr(path, name, value, size);
}

/// Sets the extended attribute `name` of `path` (followed); 0, or -1 with errno set.
static inline int books_setxattr(const char *path, const char *name, const void *value, size_t size) {
    return setxattr(path, name, value, size, 0);
}


#endif

/* Self-pipe signal delivery (booksd's SignalWaiter): the handler only writes the signal's number
   to a pipe, which is async-signal-safe; a thread reads the pipe. Whichever thread the kernel picks
   for the signal, it is recorded and never lost, and it never kills the process. */
static int books_signal_pipe_fd = -1;

static void books_signal_pipe_handler(int signo) {
    int saved = errno;
    unsigned char byte = (unsigned char)signo;
    ssize_t ignored = write(books_signal_pipe_fd, &byte, 1);
    (void)ignored;
    errno = saved;
}

/* Marks `fd` close-on-exec and non-blocking (variadic fcntl is not callable from Swift). */
static inline int books_set_cloexec(int fd) { return fcntl(fd, F_SETFD, fcntl(fd, F_GETFD) | FD_CLOEXEC); }
static inline int books_set_nonblocking(int fd) { return fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* Routes `signo` to the pipe whose write end is `fd` (set once, before the first call). */
static inline int books_route_signal_to_pipe(int fd, int signo) {
    books_signal_pipe_fd = fd;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = books_signal_pipe_handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    return sigaction(signo, &action, NULL);
}
