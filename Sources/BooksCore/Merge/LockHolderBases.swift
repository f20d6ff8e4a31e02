/// The version each editor buffer came from, for editors whose lock names no version (nano's
/// `--locking` lock, Emacs' `.#` link): the version in place when the daemon first saw the lock
/// (it reads the locks at every comparison and every commit, so a lock present before a client
/// write is seen before that write lands), then the editor's own saves.
///
/// Guarantee: holds at most `capacity` holders (the least recently set go first); a holder seen
/// again keeps its first base until ``set(_:to:)`` moves it (a save of that buffer landed).
public struct LockHolderBases: Sendable, Hashable {
    /// How many holders are kept.
    public let capacity: Int
    private var bases: [String: FileVersion] = [:]
    private var order: [String] = []

    /// An empty table keeping at most `capacity` holders.
    public init(capacity: Int = 32) { self.capacity = max(1, capacity) }

    /// The version the buffer of `holder` came from, if its lock was seen.
    public subscript(holder: String) -> FileVersion? { bases[holder] }

    /// The holders whose lock was there at the last look.
    public private(set) var present: Set<String> = []

    /// Records that the lock of `holder` is there while `current` is the content held: its
    /// buffer came from `current` unless it was seen before.
    public mutating func seen(_ holder: String, current: FileVersion) {
        if bases[holder] == nil { set(holder, to: current) }
    }

    /// A look beside the file found the locks of `holders` while `current` is the content held:
    /// records each (``seen(_:current:)``) and returns the holders whose lock was there at the
    /// previous look and is gone now (Emacs, and nano at `^X`, remove theirs just after a save lands).
    public mutating func look(_ holders: Set<String>, current: FileVersion) -> [String] {
        for holder in holders { seen(holder, current: current) }
        let vanished = present.subtracting(holders).filter { bases[$0] != nil }.sorted()
        present = holders
        return vanished
    }

    /// One holder and the version its buffer came from (what is kept across a restart).
    public struct Entry: Sendable, Hashable, Codable {
        /// The lock's holder: program, user, host and pid.
        public var holder: String
        /// The version its buffer came from.
        public var base: FileVersion
        /// Creates an entry.
        public init(holder: String, base: FileVersion) {
            self.holder = holder
            self.base = base
        }
    }

    /// Every holder with its base, least recently set first.
    public var entries: [Entry] { order.compactMap { holder in bases[holder].map { Entry(holder: holder, base: $0) } } }

    /// Takes back `kept` (entries kept before a restart, least recently set first) for the
    /// holders not seen since, as less recent than those; at most `capacity` stay.
    public mutating func restore(_ kept: [Entry]) {
        let restored = kept.filter { bases[$0.holder] == nil }
        for entry in restored { bases[entry.holder] = entry.base }
        order = restored.map(\.holder) + order
        while order.count > capacity { bases[order.removeFirst()] = nil }
    }

    /// The buffer of `holder` now holds `version` (its save landed).
    public mutating func set(_ holder: String, to version: FileVersion) {
        bases[holder] = version
        order.removeAll { $0 == holder }
        order.append(holder)
        while order.count > capacity { bases[order.removeFirst()] = nil }
    }
}
