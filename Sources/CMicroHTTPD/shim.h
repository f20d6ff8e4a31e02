#ifndef BOOKS_CMICROHTTPD_SHIM_H
#define BOOKS_CMICROHTTPD_SHIM_H
// GNU libmicrohttpd 0.9.75 (Debian libmicrohttpd-dev) and the few helpers booksd's HTTP shell
// needs: MHD_start_daemon is variadic (not callable from Swift), so the options are passed here.
#include <stdint.h>
#include <stddef.h>
#include <stdarg.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>

/// Limits and TLS material of one daemon (one listening socket).
struct booksd_mhd_options {
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit;
    unsigned int connection_timeout_seconds;
    size_t connection_memory_limit;
    const char *tls_cert_pem;  // NULL: plain HTTP
    const char *tls_key_pem;
};

/// Starts a daemon with its own polling thread (epoll) on the listening socket `fd`, with
/// suspend/resume. Returns NULL when libmicrohttpd refuses.
static inline struct MHD_Daemon *booksd_mhd_start(
    int fd, MHD_AccessHandlerCallback handler, void *handler_cls, MHD_RequestCompletedCallback completed,
    void *completed_cls, const struct booksd_mhd_options *o) {
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME
        | MHD_USE_ERROR_LOG;
    if (o->tls_cert_pem != NULL) flags |= MHD_USE_TLS;
    struct MHD_OptionItem items[10];
    int n = 0;
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_LISTEN_SOCKET, fd, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)completed, completed_cls};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, o->connection_limit, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, o->per_ip_connection_limit, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, o->connection_timeout_seconds, NULL};
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)o->connection_memory_limit, NULL};
    if (o->tls_cert_pem != NULL) {
        items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)o->tls_cert_pem};
        items[n++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)o->tls_key_pem};
    }
    items[n++] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls, MHD_OPTION_ARRAY, items, MHD_OPTION_END);
}

/// A listening TCP socket bound to the numeric address `host` (IPv4 or IPv6, no brackets) and
/// `port`; returns the descriptor, or -errno (-EINVAL for an address that is not numeric).
static inline int booksd_http_listen_tcp(const char *host, int port) {
    struct sockaddr_storage ss;
    socklen_t len;
    memset(&ss, 0, sizeof(ss));
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        len = sizeof(*v4);
    } else if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        len = sizeof(*v6);
    } else {
        return -EINVAL;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return -errno;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (ss.ss_family == AF_INET6) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
    if (bind(fd, (struct sockaddr *)&ss, len) != 0 || listen(fd, 128) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    return fd;
}

/// The port a listening socket is bound to (for port 0), or -1.
static inline int booksd_http_bound_port(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    if (getsockname(fd, (struct sockaddr *)&ss, &len) != 0) return -1;
    if (ss.ss_family == AF_INET) return ntohs(((struct sockaddr_in *)&ss)->sin_port);
    if (ss.ss_family == AF_INET6) return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    return -1;
}

/// The client's address of `connection` as text (IPv4 or IPv6), or "" when unknown.
static inline void booksd_mhd_client_address(struct MHD_Connection *connection, char *out, size_t size) {
    out[0] = 0;
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL) return;
    const struct sockaddr *sa = info->client_addr;
    if (sa->sa_family == AF_INET) inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, size);
    else if (sa->sa_family == AF_INET6) inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, size);
}

/// A response holding a copy of `size` bytes at `data`.
static inline struct MHD_Response *booksd_mhd_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

/// MHD_CONTENT_READER_END_OF_STREAM and _WITH_ERROR (macros with casts Swift does not import).
static inline ssize_t booksd_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t booksd_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t booksd_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

#endif
