import CLinux
import Glibc

/// A Unix-domain socket address (`sockaddr_un`) for a path, for `connect` and `bind`.
public struct UnixSocketAddress: Sendable {
    /// The path the address names.
    public let path: String
    private let storage: sockaddr_un
    private let length: socklen_t

    /// The address of `path`; throws when the path does not fit (108 bytes with its NUL).
    public init(path: String) throws {
        var address = sockaddr_un()
        let length = books_make_sockaddr_un(path, &address)
        guard length > 0 else { throw TestSupportError("socket path too long: \(path)") }
        self.path = path
        storage = address
        self.length = socklen_t(length)
    }

    /// Calls `body` with the address as a `sockaddr` pointer and its length.
    public func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws -> T) rethrows -> T {
        var address = storage
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, length) }
        }
    }
}
