/// What happened to a watched folder (input of ``StoreFolderStateMachine``). `now` is a
/// monotonic time (any fixed origin).
public enum StoreFolderInput: Sendable, Hashable {
    /// The folder's entry names (`initial`: at start, served at once). `withHistory`: of the
    /// files that would be the same store (`orders.txt`, `orders.json`), those with a saved
    /// history — at start the store is served from one of them.
    case listed([String], initial: Bool, now: Duration, withHistory: Set<String> = [])
    /// The folder could not be listed (gone, permission).
    case listFailed(String)
    /// An event on the entry `name` (empty name for `.overflow` / `.watchLost`).
    case entry(String, FileWatchEvent, now: Duration)
    /// A requested wake-up.
    case tick(now: Duration)
    /// Answer of ``StoreFolderAction/check(_:)``: whether each name is a regular file now.
    case checked([String: Bool], now: Duration)

    var now: Duration {
        switch self {
        case .listed(_, _, let now, _), .entry(_, _, let now), .tick(let now), .checked(_, let now): now
        case .listFailed: .zero
        }
    }
}

/// What the folder's shell does (output of ``StoreFolderStateMachine``).
public enum StoreFolderAction: Sendable, Hashable {
    /// List the folder; answer ``StoreFolderInput/listed(_:initial:now:)`` (not initial) or
    /// ``StoreFolderInput/listFailed(_:)``.
    case list
    /// Check which of these names are regular files now; answer ``StoreFolderInput/checked(_:now:)``.
    case check([String])
    /// Add these stores (log each refusal: duplicate name, same file as another store, …).
    case add([StoreSpec])
    /// Remove these stores — each only if the registry's store of that name is this file (a
    /// store configured elsewhere, or refused as a duplicate, is never removed by the folder).
    case remove([StoreSpec], reason: String)
    /// Send ``StoreFolderInput/tick(now:)`` after this long (replaces an earlier wake-up).
    case wake(after: Duration)
    /// Log a line.
    case log(LogLevel, String)
}
