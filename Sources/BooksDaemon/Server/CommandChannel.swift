import BooksPlatform
import CLinux
import Glibc
import Synchronization

/// A multi-producer, single-consumer FIFO of `ServerCommand`s that wakes the server thread's
/// `epoll_wait` through an eventfd.
///
/// Guarantees: commands are taken in the order they were posted (one Mutex orders all
/// producers); the eventfd is written only when the queue goes from empty to non-empty, and the
/// consumer reads the eventfd before taking the queue, so no command is ever left unnoticed.
/// After `close()`, posts are dropped and the eventfd is never touched again (the write happens
/// under the same lock that `close()` takes).
final class CommandChannel: Sendable {
    private struct State {
        var commands: [ServerCommand] = []
        var closed = false
    }

    /// The eventfd the server thread polls (EFD_NONBLOCK | EFD_CLOEXEC).
    let wakeFD: Int32
    private let state = Locked(State())

    init() throws(SocketServerError) {
        let fd = eventfd(0, Int32(EFD_NONBLOCK) | Int32(EFD_CLOEXEC))
        guard fd >= 0 else { throw .systemCall("eventfd", errno: errno) }
        wakeFD = fd
    }

    /// Appends a command; returns false when the channel is closed.
    @discardableResult
    func post(_ command: ServerCommand) -> Bool {
        state.withLock { s in
            guard !s.closed else { return false }
            s.commands.append(command)
            if s.commands.count == 1 {
                var one: UInt64 = 1
                _ = write(wakeFD, &one, 8)
            }
            return true
        }
    }

    /// Takes every queued command (server thread only).
    func takeAll() -> [ServerCommand] {
        var counter: UInt64 = 0
        _ = read(wakeFD, &counter, 8)
        return state.withLock { s in
            let taken = s.commands
            s.commands = []
            return taken
        }
    }

    /// Stops accepting commands and closes the eventfd; returns what was still queued.
    func close() -> [ServerCommand] {
        state.withLock { s in
            guard !s.closed else { return [] }
            s.closed = true
            Glibc.close(wakeFD)
            let rest = s.commands
            s.commands = []
            return rest
        }
    }
}
