import CLinux
import Glibc

/// A joinable POSIX thread running one closure, outside the Swift concurrency cooperative pool
/// (blocking C calls belong here).
struct DedicatedThread: Sendable {
    let id: pthread_t

    /// Boxes the body so it can cross `pthread_create`'s `void *` argument.
    private final class Body: Sendable {
        let name: String
        let run: @Sendable () -> Void
        init(name: String, run: @escaping @Sendable () -> Void) { self.name = name; self.run = run }
    }

    /// Starts a thread named `name` (15 bytes kept) that runs `body` and exits.
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(FileWatcherError) -> DedicatedThread {
        let box = Unmanaged.passRetained(Body(name: name, run: body))
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            _ = books_set_current_thread_name(body.name)
            body.run()
            return nil
        }, box.toOpaque())
        guard rc == 0 else {
            box.release()
            throw .systemCallFailed(call: "pthread_create", errno: rc)
        }
        return DedicatedThread(id: thread)
    }

    /// Whether the caller runs on this thread (joining it from itself would deadlock).
    var isCurrent: Bool { pthread_equal(pthread_self(), id) != 0 }

    /// Waits for the thread to exit, or detaches it when called from the thread itself.
    func joinOrDetach() {
        if isCurrent {
            pthread_detach(id)
        } else {
            pthread_join(id, nil)
        }
    }
}
