import BooksCore
import BooksProtocol

/// What the engine's I/O shell must do for the ``ReconcilerStateMachine``, in order.
///
/// Actions that look at or write the file have an answer: the shell feeds it back as the input
/// named on each case, right away, before it carries out the next action.
public enum ReconcilerAction: Sendable {
    /// Look at the file for `purpose`. When it still has the identity `unlessIdentity` (inode,
    /// size, times), answer `.sameIdentity` without reading it; else read and compare it with the
    /// content held. Answer: ``ReconcilerInput/fileObserved(_:for:)``.
    case observeFile(ObservationPurpose, unlessIdentity: FileIdentity?)
    /// Save `request` onto `document` (the content held), replacing the file only if it is still
    /// the version `expected` (nil: there must be no file); an insert-only request may append.
    /// Answer: ``ReconcilerInput/saveFinished(_:)``.
    case save(SaveRequest, onto: BookDocument, expected: FileIdentity?)
    /// Write `merged` (canonical text) over the version holding `replacing`. Answer:
    /// ``ReconcilerInput/lateEditWritten(_:late:merged:)``.
    case writeLateEdit(merged: [UInt8], replacing: [UInt8], expected: FileIdentity?, late: [UInt8])
    /// Write `merged` (canonical text: a stale save rebased onto the content held) over the save,
    /// whose canonical text is `replacing`, atomically and durably, only if the file is still
    /// that version (`expected`). Answer: ``ReconcilerInput/mergedSaveWritten(_:merged:)``.
    case writeMergedSave(merged: [UInt8], replacing: [UInt8], expected: FileIdentity?)
    /// Keep the unsettled conflicts durably (they are listed after a restart).
    case storeConflicts([RecordedConflict])
    /// Send a `conflict` event (one recorded or settled) to the subscribers that asked for them.
    case announceConflict(Event)
    /// Keep `content` in a recovery file beside the book file and log `message` followed by the
    /// recovery file's path, as an error: content that may be someone's edit is never dropped.
    case keepInRecoveryFile([UInt8], message: String)
    /// Read the whole file again when the confirmation timer `generation` fires. Answer:
    /// ``ReconcilerInput/confirmationRead(_:generation:)``.
    case readForConfirmation(generation: Int)
    /// Fire ``ReconcilerInput/confirmationTimerFired(generation:)`` after `delay`.
    case scheduleConfirmation(generation: Int, after: Duration)
    /// Fire ``ReconcilerInput/verificationTimerFired(writesWaiting:)`` after `delay`.
    case scheduleVerification(after: Duration)
    /// Fire ``ReconcilerInput/rereadTimerFired`` after `delay`.
    case scheduleReread(after: Duration)
    /// Fire ``ReconcilerInput/writesDue`` after `delay`.
    case scheduleWriteRetry(after: Duration)
    /// Process `input` next (a step that follows the current one).
    case process(ReconcilerInput)
    /// Hand an applied change set to every subscriber.
    case broadcast(SequencedChangeSet)
    /// Send `reply` to `connection`.
    case reply(Reply, to: ReplyTarget)
    /// Start a subscription: `reply`, then `initialEvents`, then every change after `afterSeq`.
    case startSubscription(ReplyTarget, reply: Reply, filter: BookFilter, initialEvents: [Event], afterSeq: UInt64)
    /// Stream a `list` reply or a subscriber's `snapshot` to `connection`, a page at a time as its
    /// output drains (after everything sent to it before).
    case stream(BookStreamEncoder, to: ReplyTarget)
    /// End a subscription, then send `reply`.
    case stopSubscription(ReplyTarget, reply: Reply)
    /// Log `message` at `level`, with the change set's seq when there is one.
    case log(LogLevel, String, seq: UInt64? = nil)
    /// The summary (books, bad lines, last change) or the subscriber count may have changed:
    /// refresh systemd's status line.
    case publishStatus
}
