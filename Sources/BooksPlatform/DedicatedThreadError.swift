import Glibc

/// A dedicated thread could not be started.
public struct DedicatedThreadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The name of the thread that was to be started.
    public let name: String
    /// The error `pthread_create` returned (`EAGAIN`: the process or user is out of threads).
    public let code: Int32

    /// Creates the error for thread `name` and `pthread_create`'s result `code`.
    public init(name: String, code: Int32) {
        self.name = name
        self.code = code
    }

    /// "cannot start thread NAME: REASON".
    public var description: String {
        "cannot start thread \(name): \(String(cString: strerror(code)))"
    }
}
