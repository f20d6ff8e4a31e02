import Glibc
import Synchronization

/// A value guarded by a lock: BookSync's one locked-box type, used by every module.
///
/// It has `Synchronization.Mutex`'s API (`init`, `withLock`) and is, like it, a non-copyable
/// value, so it is stored where a `Mutex` would be (a class's `let`, a `static let`).
/// In ordinary builds it is a `Synchronization.Mutex` and costs nothing more. In a build with
/// `-DBOOKS_TSAN` (`scripts/tsan.sh`) it is a heap-allocated POSIX mutex (`PthreadLock`), the
/// one kind of lock ThreadSanitizer models: `Synchronization.Mutex` on Linux is a futex taken in
/// code compiled without the sanitizer, so ThreadSanitizer would see no happens-before edge
/// between two `withLock` bodies and report every pair of accesses to a guarded value as a race
/// (a false positive). With `pthread_mutex_lock`, which it intercepts, it checks the same code
/// for real races, lock-order inversions included.
///
/// Guarantees: at most one thread runs a `withLock` body of one lock at a time, and every access
/// to the value happens inside such a body, so the value is never accessed concurrently. Values
/// cross in and out only as `sending`, so no non-`Sendable` value stays reachable from two
/// threads. Not recursive: a nested `withLock` on the same lock deadlocks.
public struct Locked<Value>: ~Copyable {
    #if BOOKS_TSAN
    @usableFromInline let lock: PthreadLock<Value>
    #else
    @usableFromInline let lock: Mutex<Value>
    #endif

    /// Creates a lock guarding `initialValue`.
    @inlinable
    public init(_ initialValue: consuming sending Value) {
        #if BOOKS_TSAN
        lock = PthreadLock(initialValue)
        #else
        lock = Mutex(initialValue)
        #endif
    }

    /// Runs `body` with exclusive access to the value; the lock is released when it returns or throws.
    @inlinable
    public borrowing func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        try lock.withLock(body)
    }
}

extension Locked: Sendable {}

/// The lock of a `Locked` in ThreadSanitizer builds: a POSIX mutex and the value, each in heap
/// memory of its own.
///
/// Both live on the heap because a `pthread_mutex_t` stored inline in a Swift value or class is
/// not guaranteed a stable address when passed with `&` (Swift may pass a temporary copy), so such
/// a lock could fail to exclude; and a stored property of a zero-sized type (`Locked(())`) shares
/// its address with the object's header, which made ThreadSanitizer pair the exclusivity check of
/// one `withLock` with another thread's metadata read before locking.
///
/// `@unchecked Sendable` is safe because the value is reached only through `withLock`, under the
/// mutex (exclusive access), and values cross in and out only as `sending`, so no non-`Sendable`
/// value stays reachable from two threads.
@usableFromInline
final class PthreadLock<Value>: @unchecked Sendable {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let value: UnsafeMutablePointer<Value>

    @usableFromInline
    init(_ initialValue: consuming sending Value) {
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

    @usableFromInline
    func withLock<Result, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value.pointee)
    }
}
