import BooksCore
import BooksProtocol

/// What happens to the NATS publisher: change sets from the engine, connection events, and the
/// answers to its own actions.
package enum NATSPublisherInput: Sendable {
    /// The engine applied a change set (handed over without blocking).
    case changeSet(SequencedChangeSet)
    /// Several change sets handed over while the publisher was busy, oldest first (taken together,
    /// so they can go out as one batch).
    case changeSets([SequencedChangeSet])
    /// The hand-over buffer was full: change sets up to `through` were dropped and must come from
    /// the engine's change log.
    case changesDropped(through: UInt64)
    /// Connected, or connected again after a loss.
    case connected
    /// The connection was lost (the library reconnects on its own).
    case disconnected
    /// Answer to `.prepare`: the stream and bucket exist with compatible settings.
    case prepared
    /// Answer to `.prepare`: they could not be checked or created (`reason` says why).
    case prepareFailed(reason: String)
    /// Answer to `.lookUpStreamPosition`: the last message of this store in the stream (nil: none).
    case streamPositionFound(ResumePoint?)
    /// Answer to `.lookUpStreamPosition`: the stream's last message is not one this booksd wrote
    /// (`NATSStreamCheck`; `reason` says why): the stream is continued with a snapshot marker.
    case streamEndUntrusted(reason: String)
    /// Answer to `.lookUpStreamPosition`: the stream could not be read.
    case lookupFailed(reason: String)
    /// Answer to `.publish`: the stream holds the batch up to the change set with `seq` (stored now or before).
    case published(seq: UInt64)
    /// Answer to `.publish`: the change set `seq` cannot be published (`reason`: one of its books
    /// alone is larger than the server's `max_payload`); the batch's change sets before it are
    /// stored. It is skipped: a snapshot marker follows, telling consumers to read the bucket.
    case unpublishable(seq: UInt64, reason: String)
    /// Answer to `.publish` or `.publishSnapshot`: it may or may not have been stored.
    case publishFailed(reason: String)
    /// Answer to `.fetchChangeLog(after:)`: the change sets after `after`, oldest first; nil when
    /// the engine's log no longer reaches back that far (or the engine has another lineage).
    case changeLogFetched(after: UInt64, [SequencedChangeSet]?)
    /// Answer to `.publishSnapshot`: the bucket now equals the books at `seq` and the stream holds
    /// a snapshot marker for `seq`.
    case snapshotPublished(seq: UInt64)
    /// The single-owner lease was lost (another booksd took the store, or it expired): stop,
    /// and take it again (`.prepare`) before publishing anything else.
    case ownershipLost(reason: String)
    /// The retry delay asked for by `.scheduleRetry` passed.
    case retryTimerFired
}

/// What the NATS publisher's I/O shell must do. Actions with an answer (`prepare`,
/// `lookUpStreamPosition`, `publish`, `fetchChangeLog`, `publishSnapshot`) are answered with one
/// `NATSPublisherInput` each; no second one is issued until the answer came.
package enum NATSPublisherAction: Sendable, Equatable {
    /// Make sure the stream and the bucket exist and are compatible (create them if missing), and
    /// take the store's single-owner lease (answered `.prepareFailed` naming the holder if taken).
    case prepare
    /// Read the last message of this store's subject and parse its `Nats-Msg-Id`.
    case lookUpStreamPosition
    /// Apply the change sets (consecutive seqs, the first right after the stream's end) to the
    /// bucket (puts, deletes), then publish them to the stream in order, each with
    /// `Nats-Msg-Id: <store>:<epoch>:<seq>` (bucket first: a retry after a failure redoes both);
    /// a change set larger than the server's `max_payload` goes out as several parts
    /// (`NATSPayload.changeMessages`). Answered `.published(seq:)` with the last seq once every
    /// one is stored, or `.unpublishable` for the first that cannot go out at all.
    case publish([SequencedChangeSet])
    /// Ask the engine for its change sets after `after`.
    case fetchChangeLog(after: UInt64)
    /// Take the engine's current books and seq, make the bucket equal to them, publish a snapshot
    /// marker for that seq.
    case publishSnapshot
    /// Feed `.retryTimerFired` after `delay`.
    case scheduleRetry(Duration)
    /// Log a line.
    case log(LogLevel, String)
}
