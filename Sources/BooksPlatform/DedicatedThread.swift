import CLinux
import Glibc

/// A named, joinable POSIX thread that runs one closure outside Swift's cooperative pool.
///
/// Blocking C calls (`epoll_wait`, `select` in libinotifytools, `recv` on a client socket) belong
/// on a thread of their own: a cooperative-pool thread that blocks starves every task. This is the
/// one thread type of BookSync: the socket server, the fan-out sender, the inotify hub and the
/// client's reader all run on one.
///
/// Guarantees:
/// - `start` returns only after the thread exists; the body runs exactly once, on that thread,
///   with the thread named `name` (the first 15 bytes, as `top -H` and `/proc/*/task/*/comm` show).
/// - `join()` returns after the body returned. Joining from the thread itself does not deadlock:
///   it detaches instead. Joining twice is harmless.
/// - A thread that is never joined is detached when its handle is released, so no thread's
///   resources leak.
public final class DedicatedThread: Sendable {
    /// The name given at start.
    public let name: String
    private let handle: pthread_t
    /// Whether the thread was joined or detached (its handle then must not be used again).
    private let released = Locked(false)

    /// Boxes the body so it can cross `pthread_create`'s `void *` argument.
    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) {
            self.name = name
            self.run = run
        }
    }

    private init(name: String, handle: pthread_t) {
        self.name = name
        self.handle = handle
    }

    deinit {
        let needsDetach = released.withLock { done in
            defer { done = true }
            return !done
        }
        if needsDetach { pthread_detach(handle) }
    }

    /// Starts a thread named `name` that runs `body`; throws when the system refuses a thread.
    public static func start(
        name: String, _ body: @escaping @Sendable () -> Void
    ) throws(DedicatedThreadError) -> DedicatedThread {
        let box = Unmanaged.passRetained(Body(name: name, run: body))
        var thread = pthread_t()
        // pthread_create returns its error; it does not set errno.
        let rc = pthread_create(
            &thread, nil,
            { raw in
                let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
                _ = books_set_current_thread_name(body.name)
                body.run()
                return nil
            }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw DedicatedThreadError(name: name, code: rc)
        }
        return DedicatedThread(name: name, handle: thread)
    }

    /// Whether the caller runs on this thread.
    public var isCurrent: Bool { pthread_equal(pthread_self(), handle) != 0 }

    /// Waits until the body returned; from the thread itself, detaches instead (it cannot wait
    /// for itself). Later calls return at once.
    public func join() {
        let first = released.withLock { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        if isCurrent {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }
}
