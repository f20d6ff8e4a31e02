import BooksCore

/// What the NATS publisher reads from an engine when the stream is behind.
public protocol NATSPublisherSource: AnyObject, Sendable {
    /// The engine's lineage.
    var epoch: String { get }
    /// The change sets after `seq`, oldest first; nil when the change log no longer reaches back.
    /// May block (waits for the engine's queue); never call it from the engine's queue.
    func changes(after seq: UInt64) -> [SequencedChangeSet]?
    /// Every current book with its version, and the seq they are the state of. May block.
    func currentBooks() -> (seq: UInt64, books: [VersionedBook])
}

extension BookEngine: NATSPublisherSource {
    /// The change log after `seq` (see `NATSPublisherSource`); read on the engine's queue.
    public func changes(after seq: UInt64) -> [SequencedChangeSet]? {
        queue.sync {
            machine.withLock { machine -> [SequencedChangeSet]? in
                guard case .replay(let missed) = machine.context.replay(fromEpoch: epoch, seq: seq) else { return nil }
                return missed
            }
        }
    }

    /// The books and their seq (see `NATSPublisherSource`); read on the engine's queue.
    public func currentBooks() -> (seq: UInt64, books: [VersionedBook]) {
        queue.sync {
            machine.withLock { machine in
                let context = machine.context
                return (context.seq, context.books.map { VersionedBook(book: $0, version: context.version(of: $0.id)) })
            }
        }
    }
}
