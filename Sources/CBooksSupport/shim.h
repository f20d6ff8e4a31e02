#ifndef BOOKS_CBOOKSSUPPORT_SHIM_H
#define BOOKS_CBOOKSSUPPORT_SHIM_H
/// Hints the CPU to fetch the cache line at `address` for reading (no effect on results).
static inline void books_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }
#endif
