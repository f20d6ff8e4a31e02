import BooksCore
import Glibc

/// Why the state directory or one of its files cannot be used.
public enum HistoryStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed (`operation` on `path`, with `errno`).
    case system(operation: String, path: String, errno: Int32)
    /// The directory or a file is not what booksd creates (owner, type, permissions).
    case refused(path: String, reason: String)

    public var description: String {
        switch self {
        case .system(let operation, let path, let number):
            "\(operation) \(path): \(String(cString: strerror(number)))"
        case .refused(let path, let reason): "\(path) is refused: \(reason)"
        }
    }
}
