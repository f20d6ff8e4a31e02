import BooksStore

/// A store's saved history as its engine holds it: open from the start (the store's state
/// directory existed), or still to be created (it did not: there is nothing to restore, and the
/// directory and its files are created after the daemon is ready, on the engine's queue — see
/// `BookEngine.historyReady()` — so a cold start of many stores does not wait for the disk).
///
/// `@unchecked Sendable` is safe: `store` and `create` change only in `createIfDeferred()` and
/// `release()`, which
/// the engine calls only on its serial queue, where every other use of the history also runs
/// (`BookEngine+History`), so no two threads touch them.
final class EngineHistory: @unchecked Sendable {
    /// The open history; nil while its creation is deferred, or when that creation failed.
    private(set) var store: HistoryStore? {
        didSet { versions = store.map { FileVersionsLog(directory: $0.directory) } }
    }
    /// The file versions kept beside it (in its state directory); nil when `store` is.
    private(set) var versions: FileVersionsLog?
    private var create: (@Sendable () -> HistoryStore?)?

    /// A history opened at start.
    init(_ store: HistoryStore) {
        self.store = store
        versions = FileVersionsLog(directory: store.directory)
    }

    /// A history created on the first `createIfDeferred()`; `create` logs why it failed, if it does.
    init(creating create: @escaping @Sendable () -> HistoryStore?) { self.create = create }

    /// Lets go of the history (after its final snapshot): its descriptors are closed once no
    /// write holds it, and a deferred one is never created.
    func release() {
        store = nil
        create = nil
    }

    /// Creates the deferred history now (once); true when this call created it.
    func createIfDeferred() -> Bool {
        guard let create else { return false }
        self.create = nil
        store = create()
        return store != nil
    }
}
