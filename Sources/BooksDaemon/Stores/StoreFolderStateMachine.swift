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
    }

    public let configuration: Configuration
    private(set) var entries: [String: Entry] = [:]
    /// Names whose store must be added, in order (bounded per step).
    private(set) var pendingAdds: [String] = []
    /// Names whose store must be removed.
    private(set) var pendingRemovals: [String] = []
    /// Invalid names already logged.
    private var reportedInvalid: Set<String> = []
    private var folderLost = false

    /// A machine for `configuration` knowing no file yet.
    public init(configuration: Configuration) { self.configuration = configuration }

    /// The store names served (or queued to be).
    public var servingNames: [String] { entries.filter { $0.value == .serving }.map(\.key).sorted() }

    /// Handles one input; returns the actions to carry out in order.
    public mutating func handle(_ input: StoreFolderInput) -> [StoreFolderAction] {
        var actions: [StoreFolderAction] = []
        switch input {
        case .listed(let names, let initial, let now):
            listed(names, initial: initial, now: now, into: &actions)
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
            for (name, present) in results { checked(name, present: present, now: now) }
        }
        step(now: input.now, into: &actions)
        return actions
    }

    private mutating func listed(
        _ names: [String], initial: Bool, now: Duration, into actions: inout [StoreFolderAction]
    ) {
        if folderLost {
            folderLost = false
            actions.append(.log(.notice, "watched folder \(configuration.folder) is back: listing it again"))
        }
        var present: Set<String> = []
        for name in names where isCandidate(name, into: &actions) {
            present.insert(name)
            switch entries[name] {
            case nil:
                if initial {
                    entries[name] = .serving
                    pendingAdds.append(name)
                } else {
                    entries[name] = .appearing(deadline: now + configuration.confirmation)
                }
            case .disappearing:
                entries[name] = .serving
            case .appearing, .serving:
                break
            }
        }
        for (name, entry) in entries where !present.contains(name) {
            switch entry {
            case .serving: entries[name] = .disappearing(deadline: now + configuration.confirmation)
            case .appearing: entries[name] = nil
            case .disappearing: break
            }
        }
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
        case (.removed, .appearing?):
            entries[name] = nil
        case (.removed, nil):
            break
        case (_, nil), (_, .appearing?):
            entries[name] = .appearing(deadline: deadline)  // every event restarts the quiet period
        case (_, .disappearing?):
            entries[name] = .disappearing(deadline: deadline)  // back? confirmed by the check
        case (_, .serving?):
            break  // the store's own engine handles its content
        }
    }

    private mutating func checked(_ name: String, present: Bool, now: Duration) {
        switch (entries[name], present) {
        case (.appearing(let deadline)?, true) where deadline <= now:
            entries[name] = .serving
            pendingAdds.append(name)
        case (.appearing(let deadline)?, false) where deadline <= now:
            entries[name] = nil
        case (.disappearing(let deadline)?, false) where deadline <= now:
            entries[name] = nil
            pendingRemovals.append(name)
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
        case .serving: nil
        }
    }
}
