#ifndef BOOKS_CMICROHTTPD_SHIM_H
#define BOOKS_CMICROHTTPD_SHIM_H
// GNU libmicrohttpd 0.9.75 (Debian libmicrohttpd-dev) and the few helpers booksd's HTTP shell
// needs: MHD_start_daemon is variadic (not callable from Swift), so the options are passed here.
// Only microhttpd.h: the sockets are made in Swift (Glibc), so no other system header becomes
// part of this module.
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

/// A response holding a copy of `size` bytes at `data`.
static inline struct MHD_Response *booksd_mhd_response_copy(size_t size, const void *data) {
    return MHD_create_response_from_buffer(size, (void *)data, MHD_RESPMEM_MUST_COPY);
}

/// MHD_CONTENT_READER_END_OF_STREAM and _WITH_ERROR (macros with casts Swift does not import).
static inline ssize_t booksd_mhd_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t booksd_mhd_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
static inline uint64_t booksd_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }

#endif
