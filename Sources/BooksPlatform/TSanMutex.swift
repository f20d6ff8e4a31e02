import Glibc

/// A mutual-exclusion lock on a POSIX mutex, with `Synchronization.Mutex`'s API (`init`,
/// `withLock`), for ThreadSanitizer builds only.
///
/// `Synchronization.Mutex` on Linux is a futex taken in code compiled without the sanitizer, so
/// ThreadSanitizer sees no happens-before edge between two `withLock` bodies and reports every
/// pair of accesses to a guarded value as a race (a false positive). `pthread_mutex_lock` is
/// intercepted by ThreadSanitizer, so with this lock it checks the same code for real races.
/// In a build with `-DBOOKS_TSAN` (scripts/test.sh's `tsan` phase) each module that uses `Mutex`
/// declares `typealias Mutex<Value> = TSanMutex<Value>` (`Mutex+TSan.swift`), which shadows
/// `Synchronization.Mutex`; other builds use `Synchronization.Mutex` unchanged.
///
/// Guarantees: at most one thread runs a `withLock` body of one lock at a time, and every
/// access to the value happens inside such a body, so the value is never accessed concurrently.
/// Not recursive (a nested `withLock` on the same lock deadlocks, as with `Synchronization.Mutex`).
///
/// `@unchecked Sendable` is safe because the value is reached only through `withLock`, under the
/// mutex (exclusive access), and values cross in and out only as `sending` (as in
/// `Synchronization.Mutex`), so no non-Sendable value stays reachable from two threads.
public final class TSanMutex<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The value, in memory of its own: a stored property of a zero-sized type (`Mutex(())`)
    /// shares its address with the object's header, which made ThreadSanitizer pair the
    /// exclusivity check of one `withLock` with another thread's metadata read before locking.
    private let value: UnsafeMutablePointer<Value>

    /// Creates a lock guarding `initialValue`.
    public init(_ initialValue: consuming sending Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        value = .allocate(capacity: 1)
        value.initialize(to: initialValue)
    }

    deinit {
        value.deinitialize(count: 1)
        value.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value; the lock is released when it returns or throws.
    public func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
