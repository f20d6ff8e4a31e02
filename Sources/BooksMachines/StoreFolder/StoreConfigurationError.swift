/// Why a store could not be configured, added or removed. Each message names the store and the
/// fix; the other stores keep serving.
public enum StoreConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The text is not a valid ``StoreName``.
    case invalidName(String, reason: String)
    /// A `--store` / `store` specification could not be read.
    case invalidSpecification(String, reason: String)
    /// A store with this name already exists.
    case duplicateName(StoreName, existingPath: String)
    /// The path is the same file (device and inode, symlinks followed) as another store's.
    case sameFile(StoreName, path: String, other: StoreName, otherPath: String)
    /// No store has this name.
    case unknownStore(StoreName)
    /// The store's file watch could not be established: the watcher's error, as it describes itself.
    case watchFailed(StoreName, String)
    /// The daemon already serves its limit of stores (`max_stores`, or what `RLIMIT_NOFILE`
    /// leaves after the descriptors kept for clients): `reason` says which.
    case tooManyStores(StoreName, path: String, limit: Int, reason: String)

    /// One line for logs and usage errors.
    public var description: String {
        switch self {
        case .invalidName(let text, let reason):
            return "invalid store name '\(text)': \(reason)"
        case .invalidSpecification(let text, let reason):
            return "invalid store '\(text)': \(reason) (expected NAME=PATH[:text|json])"
        case .duplicateName(let name, let path):
            return "a store named '\(name)' already exists (\(path)); store names must be unique"
        case .sameFile(let name, let path, let other, let otherPath):
            return "store '\(name)' (\(path)) is the same file as store '\(other)' (\(otherPath)); "
                + "two stores cannot share a file"
        case .unknownStore(let name):
            return "no store named '\(name)'"
        case .watchFailed(let name, let error):
            return "store '\(name)': \(error)"
        case .tooManyStores(let name, let path, let limit, let reason):
            return "store '\(name)' (\(path)) is not served: the daemon serves its limit of \(limit) stores (\(reason))"
        }
    }
}
