#ifndef BOOKS_CBOOKSSUPPORT_SHIM_H
#define BOOKS_CBOOKSSUPPORT_SHIM_H
#include <stddef.h>
#include <stdint.h>
/// Hints the CPU to fetch the cache line at `address` for reading (no effect on results).
static inline void books_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// Continues the CRC-32C (Castagnoli) `crc` over `length` bytes at `data` with the SSE 4.2
/// instruction (x86-64 only; callers check `books_crc32c_hardware_available` first). Pass and
/// receive the finalised value (0 for no bytes yet).
#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static inline uint32_t books_crc32c_hardware(uint32_t crc, const void *data,
                                                                                size_t length) {
    const unsigned char *p = (const unsigned char *)data;
    uint64_t c = ~crc;
    while (length >= 8) {
        uint64_t word;
        __builtin_memcpy(&word, p, 8);
        c = __builtin_ia32_crc32di(c, word);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length > 0) {
        c32 = __builtin_ia32_crc32qi(c32, *p);
        p++;
        length--;
    }
    return ~c32;
}

/// Whether this CPU has the SSE 4.2 CRC-32C instruction.
static inline int books_crc32c_hardware_available(void) { return __builtin_cpu_supports("sse4.2"); }
#else
static inline uint32_t books_crc32c_hardware(uint32_t crc, const void *data, size_t length) { return crc; }
static inline int books_crc32c_hardware_available(void) { return 0; }
#endif
#endif
