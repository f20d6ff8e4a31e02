/// How a ``FileWatcher`` notices changes, for status reporting.
public enum WatchMode: Sendable, Hashable, CustomStringConvertible {
    /// Kernel inotify notifications on the containing directory (local filesystems).
    case inotify
    /// Periodic `stat` of the file every `intervalSeconds` (network filesystems, where inotify does
    /// not see changes made by other hosts).
    case polling(intervalSeconds: Double)

    /// `inotify` or `polling every N s`.
    public var description: String {
        switch self {
        case .inotify: "inotify"
        case .polling(let interval): "polling every \(interval) s"
        }
    }
}

extension WatchMode {
    /// The `watcherMode` word of `status`: `inotify` or `polling`.
    public var word: String {
        switch self {
        case .inotify: "inotify"
        case .polling: "polling"
        }
    }
}
