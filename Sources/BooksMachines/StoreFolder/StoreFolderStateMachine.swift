import BooksCore

/// The decisions of a watched folder (`--dir`), as a value that performs no I/O: folder
/// listings, entry events, presence checks and clock ticks go in; store additions and removals,
/// checks, listings, wake-ups and log lines come out (``StoreFolderAction``).
///
/// Guarantees:
/// - A name becomes a store only when its file is still there after a quiet period (the
///   confirmation delay, restarted by every event on that name), and stops being one only when
///   it is still absent after one — the rule of an empty file (docs/RELIABILITY.md): an editor's
///   rename dance or `rm` + recreate never removes and re-adds a store. At start the listed files
///   are added at once.
/// - Editors' temporary and backup files never become stores (``StoreFolderNames``).
/// - One file per store name: `orders.txt` and `orders.json` would both be the store `orders`.
///   The file that serves it keeps it; the other is shadowed (logged once) and becomes the store
///   when that file leaves the folder (after the confirmation delay, like any appearance). At
///   start the store is served from the file with a saved history, else (none or both) from
///   `NAME.txt` before `NAME.json`.
/// - Bounded work per step: at most `batchSize` stores are added, removed or checked per input;
///   the rest waits for the next ``StoreFolderInput/tick(now:)`` (a `wake(after: .zero)` asks
///   for it), so 10,000 files dropped at once are taken in steps, logged.
/// - A lost folder (deleted, moved, unmounted) is logged once; its stores stay (their engines
///   report the files missing) and the folder is listed again when its watch is back.
public struct StoreFolderStateMachine: Sendable {
    /// Settings.
    public struct Configuration: Sendable, Hashable {
        /// The folder's path (for logs and store paths).
        public var folder: String
        /// The quiet period before an appearance or a disappearance is believed.
        public var confirmation: Duration
        /// Most stores added, removed or checked per input.
        public var batchSize: Int

        /// Creates settings.
        public init(folder: String, confirmation: Duration, batchSize: Int = 64) {
            self.folder = folder
            self.confirmation = confirmation
            self.batchSize = max(1, batchSize)
        }
    }

    /// What the machine knows about one file name.
    enum Entry: Sendable, Hashable {
        /// Seen, not yet a store: becomes one if present at `deadline`.
        case appearing(deadline: Duration)
        /// A store (or queued to become one).
        case serving
        /// A store whose file is gone: removed if still absent at `deadline`.
        case disappearing(deadline: Duration)
        /// Present, but its store name is served from another file.
        case shadowed
    }

    public let configuration: Configuration
    private(set) var entries: [String: Entry] = [:]
    /// Names whose store must be added, in order (bounded per step).
    package private(set) var pendingAdds: [String] = []
    /// Names whose store must be removed.
    private(set) var pendingRemovals: [String] = []
    /// Invalid names already logged.
    private var reportedInvalid: Set<String> = []
    /// For each store name served (or queued to be) from this folder: the file serving it.
    private(set) var owners: [StoreName: String] = [:]
    /// Shadowed files already logged.
    private var reportedShadowed: Set<String> = []
    private var folderLost = false

    /// A machine for `configuration` knowing no file yet.
    public init(configuration: Configuration) { self.configuration = configuration }

    /// The store names served (or queued to be).
    public var servingNames: [String] { entries.filter { $0.value == .serving }.map(\.key).sorted() }

    /// Handles one input; returns the actions to carry out in order.
    public mutating func handle(_ input: StoreFolderInput) -> [StoreFolderAction] {
        var actions: [StoreFolderAction] = []
        switch input {
        case .listed(let names, let initial, let now, let withHistory):
            listed(names, initial: initial, now: now, withHistory: withHistory, into: &actions)
        case .listFailed(let reason):
            if !folderLost {
                folderLost = true
                actions.append(
                    .log(
                        .error,
                        "watched folder \(configuration.folder) cannot be listed: \(reason); its \(servingNames.count) "
                            + "store(s) are kept (their files are reported missing); other stores keep serving"))
            }
            return actions
        case .entry(let name, let event, let now):
            entry(name, event, now: now, into: &actions)
        case .tick:
            break
        case .checked(let results, let now):
            for (name, present) in results.sorted(by: { Self.precedes($0.key, $1.key) }) {
                checked(name, present: present, now: now, into: &actions)
            }
        }
        step(now: input.now, into: &actions)
        return actions
    }

    private mutating func listed(
        _ names: [String], initial: Bool, now: Duration, withHistory: Set<String>,
        into actions: inout [StoreFolderAction]
    ) {
        if folderLost {
            folderLost = false
            actions.append(.log(.notice, "watched folder \(configuration.folder) is back: listing it again"))
        }
        var present: Set<String> = []
        // At start, of several files of one store name: the one with a saved history, else
        // `.txt` before `.json`.
        var winners: [StoreName: String] = [:]
        if initial {
            for name in names {
                guard case .store(let store, _) = StoreFolderNames.classify(name) else { continue }
                guard let best = winners[store] else {
                    winners[store] = name
                    continue
                }
                let (hn, hb) = (withHistory.contains(name), withHistory.contains(best))
                if hn != hb ? hn : Self.precedes(name, best) { winners[store] = name }
            }
        }
        for name in names where isCandidate(name, into: &actions) {
            present.insert(name)
            switch entries[name] {
            case nil:
                if initial {
                    serve(
                        name, preferring: StoreFolderNames.store(for: name).flatMap { winners[$0.name] }, into: &actions
                    )
                } else {
                    entries[name] = .appearing(deadline: now + configuration.confirmation)
                }
            case .disappearing:
                entries[name] = .serving
            case .appearing, .serving, .shadowed:
                break
            }
        }
        for (name, entry) in entries where !present.contains(name) {
            switch entry {
            case .serving: entries[name] = .disappearing(deadline: now + configuration.confirmation)
            case .appearing, .shadowed: entries[name] = nil
            case .disappearing: break
            }
        }
    }

    /// `name` is present and confirmed: it serves its store, unless another file already does
    /// (then it is shadowed, logged once).
    private mutating func serve(
        _ name: String, preferring winner: String? = nil, into actions: inout [StoreFolderAction]
    ) {
        guard let store = StoreFolderNames.store(for: name)?.name else { return }
        if let owner = owners[store] ?? winner, owner != name {
            entries[name] = .shadowed
            if reportedShadowed.insert(name).inserted {
                actions.append(
                    .log(
                        .warning,
                        "'\(name)' in the watched folder \(configuration.folder) is not served: the store "
                            + "'\(store.rawValue)' is served from '\(owner)' (it is served from '\(name)' if that "
                            + "file leaves the folder)"))
            }
            return
        }
        owners[store] = name
        entries[name] = .serving
        pendingAdds.append(name)
    }

    /// `name`'s store is removed: a shadowed file of the same store name (if any) appears in
    /// its place, checked at once.
    private mutating func release(_ name: String, now: Duration) {
        guard let store = StoreFolderNames.store(for: name)?.name, owners[store] == name else { return }
        owners[store] = nil
        let waiting = entries.filter { $0.value == .shadowed && StoreFolderNames.store(for: $0.key)?.name == store }
        if let next = waiting.keys.sorted(by: Self.precedes).first {
            entries[next] = .appearing(deadline: now)
            reportedShadowed.remove(next)
        }
    }

    /// The order among files of one store name: `NAME.txt` before `NAME.json` (then by name).
    static func precedes(_ a: String, _ b: String) -> Bool {
        let (ta, tb) = (a.hasSuffix(".txt"), b.hasSuffix(".txt"))
        if ta != tb, a.dropLast(ta ? 4 : 5) == b.dropLast(tb ? 4 : 5) { return ta }
        return a < b
    }

    private mutating func entry(
        _ name: String, _ event: FileWatchEvent, now: Duration, into actions: inout [StoreFolderAction]
    ) {
        switch event {
        case .overflow, .watchLost:
            actions.append(.list)
            return
        default:
            break
        }
        guard isCandidate(name, into: &actions) else { return }
        let deadline = now + configuration.confirmation
        switch (event, entries[name]) {
        case (.removed, .serving?), (.removed, .disappearing?):
            entries[name] = .disappearing(deadline: deadline)
        case (.removed, .appearing?), (.removed, .shadowed?):
            entries[name] = nil
            reportedShadowed.remove(name)
        case (.removed, nil):
            break
        case (_, nil), (_, .appearing?):
            entries[name] = .appearing(deadline: deadline)  // every event restarts the quiet period
        case (_, .disappearing?):
            entries[name] = .disappearing(deadline: deadline)  // back? confirmed by the check
        case (_, .serving?), (_, .shadowed?):
            break  // the store's own engine handles its content; a shadowed file waits
        }
    }

    private mutating func checked(
        _ name: String, present: Bool, now: Duration, into actions: inout [StoreFolderAction]
    ) {
        switch (entries[name], present) {
        case (.appearing(let deadline)?, true) where deadline <= now:
            serve(name, into: &actions)
        case (.appearing(let deadline)?, false) where deadline <= now:
            entries[name] = nil
        case (.disappearing(let deadline)?, false) where deadline <= now:
            entries[name] = nil
            pendingRemovals.append(name)
            release(name, now: now)
        case (.disappearing(let deadline)?, true) where deadline <= now:
            entries[name] = .serving
        default:
            break  // an event moved the deadline meanwhile: the next check decides
        }
    }

    /// Emits at most `batchSize` of the pending work, the due checks, and the next wake-up.
    private mutating func step(now: Duration, into actions: inout [StoreFolderAction]) {
        var budget = configuration.batchSize
        if !pendingRemovals.isEmpty {
            let batch = Array(pendingRemovals.prefix(budget))
            pendingRemovals.removeFirst(batch.count)
            budget -= batch.count
            actions.append(.remove(specs(batch), reason: "its file left the watched folder \(configuration.folder)"))
        }
        if budget > 0, !pendingAdds.isEmpty {
            let batch = Array(pendingAdds.prefix(budget))
            pendingAdds.removeFirst(batch.count)
            budget -= batch.count
            actions.append(.add(specs(batch)))
            if !pendingAdds.isEmpty {
                actions.append(
                    .log(.notice, "watched folder \(configuration.folder): \(pendingAdds.count) more store(s) to add"))
            }
        }
        let due = entries.filter { $0.value.deadline.map { $0 <= now } ?? false }.map(\.key).sorted()
        if budget > 0, !due.isEmpty { actions.append(.check(Array(due.prefix(budget)))) }
        if !pendingAdds.isEmpty || !pendingRemovals.isEmpty || due.count > budget {
            actions.append(.wake(after: .zero))
        } else if let next = entries.values.compactMap(\.deadline).filter({ $0 > now }).min() {
            actions.append(.wake(after: next - now))
        }
    }

    private mutating func isCandidate(_ name: String, into actions: inout [StoreFolderAction]) -> Bool {
        switch StoreFolderNames.classify(name) {
        case .store: return true
        case .ignored: return false
        case .invalidName(let file):
            if reportedInvalid.insert(file).inserted {
                actions.append(
                    .log(
                        .warning,
                        "'\(file)' in the watched folder \(configuration.folder) is not served: its base name is not a "
                            + "valid store name (letters, digits, '.', '_', '-', at most 64, starting with a letter or digit)"
                    ))
            }
            return false
        }
    }

    /// The stores of the folder files `names`.
    private func specs(_ names: [String]) -> [StoreSpec] {
        names.compactMap { name in
            StoreFolderNames.store(for: name).map { StoreSpec(name: $0.name, path: path(of: name), format: $0.format) }
        }
    }

    private func path(of name: String) -> String {
        configuration.folder.hasSuffix("/") ? configuration.folder + name : configuration.folder + "/" + name
    }
}

extension StoreFolderStateMachine.Entry {
    var deadline: Duration? {
        switch self {
        case .appearing(let deadline), .disappearing(let deadline): deadline
        case .serving, .shadowed: nil
        }
    }
}
