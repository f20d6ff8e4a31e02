import CInotifyTools

/// The routing table of an ``InotifyHub``: which directories are watched, under which watch
/// descriptor, and who hears what — per-file watchers by exact file name, directory listeners for
/// every entry. Pure (no I/O, no threads), so dispatch is unit-tested without the kernel.
///
/// Guarantees: one watch per directory however many files or listeners it has; an event reaches
/// only the registrations of its directory (by watch descriptor) and, for a file watcher, only
/// events on its exact name, classified by ``InotifyEventClassifier``; subdirectory entries never reach a listener.
struct InotifyHubRoutes: Sendable {
    /// Identifies one registration (a file watcher or a directory listener).
    typealias ID = UInt64

    /// One watched directory.
    struct Directory: Sendable {
        /// Its watch descriptor, or -1 while not (yet, or no longer) watched.
        var watch: Int32 = -1
        /// File watchers by exact file name.
        var files: [String: Set<ID>] = [:]
        /// Listeners hearing every entry of the directory.
        var listeners: Set<ID> = []

        var isEmpty: Bool { files.isEmpty && listeners.isEmpty }
    }

    /// Where one event goes.
    enum Delivery: Sendable, Hashable {
        /// To the file watcher `id`.
        case file(ID, FileWatchEvent)
        /// To the directory listener `id`, about entry `name` (empty for the directory itself).
        case listener(ID, name: String, FileWatchEvent)
    }

    private(set) var directories: [String: Directory] = [:]
    private var byWatch: [Int32: String] = [:]

    /// Registers the file watcher `id` for `name` in `directory`.
    mutating func addFile(_ id: ID, directory: String, name: String) {
        directories[directory, default: Directory()].files[name, default: []].insert(id)
    }

    /// Registers the listener `id` for every entry of `directory`.
    mutating func addListener(_ id: ID, directory: String) {
        directories[directory, default: Directory()].listeners.insert(id)
    }

    /// Removes registration `id`; returns its directory when that directory has no registration
    /// left (its watch should be removed).
    @discardableResult
    mutating func remove(_ id: ID) -> String? {
        for (path, var directory) in directories {
            var found = directory.listeners.remove(id) != nil
            for (name, var ids) in directory.files where ids.contains(id) {
                ids.remove(id)
                directory.files[name] = ids.isEmpty ? nil : ids
                found = true
            }
            guard found else { continue }
            directories[path] = directory
            return directory.isEmpty ? path : nil
        }
        return nil
    }

    /// Directories that have registrations but no watch.
    var unwatched: [String] { directories.filter { $0.value.watch < 0 && !$0.value.isEmpty }.map(\.key).sorted() }

    /// Watched directories without any registration left: (path, watch descriptor).
    var abandoned: [(String, Int32)] {
        directories.filter { $0.value.watch >= 0 && $0.value.isEmpty }.map { ($0.key, $0.value.watch) }
    }

    /// Records that `directory` is watched under `watch` (or no longer, with -1; an empty entry
    /// is then forgotten).
    mutating func setWatch(_ watch: Int32, for directory: String) {
        if let old = directories[directory]?.watch, old >= 0 { byWatch[old] = nil }
        guard var entry = directories[directory] else { return }
        entry.watch = watch
        if watch >= 0 { byWatch[watch] = directory }
        directories[directory] = watch < 0 && entry.isEmpty ? nil : entry
    }

    /// The directory watched under `watch`.
    func directory(watchedBy watch: Int32) -> String? { byWatch[watch] }

    /// Number of directories watched now.
    var watchCount: Int { byWatch.count }

    /// Every registration of `directory` (nil: all directories) with `event`.
    func everyone(in directory: String? = nil, _ event: FileWatchEvent) -> [Delivery] {
        var result: [Delivery] = []
        for (path, entry) in directories.sorted(by: { $0.key < $1.key }) where directory == nil || directory == path {
            for ids in entry.files.sorted(by: { $0.key < $1.key }).map(\.value) {
                result += ids.sorted().map { .file($0, event) }
            }
            result += entry.listeners.sorted().map { .listener($0, name: "", event) }
        }
        return result
    }

    /// What one raw event means: the deliveries, and the directory whose watch is gone (if so).
    func route(wd: Int32, mask: UInt32, name: String) -> (deliveries: [Delivery], lost: String?) {
        if mask & InotifyEventClassifier.queueOverflow != 0 { return (everyone(.overflow), nil) }
        guard let path = byWatch[wd], let entry = directories[path] else { return ([], nil) }
        if mask & InotifyEventClassifier.directoryGone != 0 { return (everyone(in: path, .watchLost), path) }
        guard !name.isEmpty, mask & Self.isDirectory == 0 else { return ([], nil) }
        let outcome = InotifyEventClassifier.classify(
            wd: wd, mask: mask, name: name, directoryWatch: wd, fileName: name)
        guard case .deliver(let event) = outcome else { return ([], nil) }
        var result = (entry.files[name] ?? []).sorted().map { Delivery.file($0, event) }
        result += entry.listeners.sorted().map { .listener($0, name: name, event) }
        return (result, nil)
    }

    static let isDirectory = UInt32(IN_ISDIR)
}
