import BooksCore
import BooksProtocol
import BooksStore
import Dispatch

/// The I/O shell: carries out one action of the state machine.
extension BookEngine {
    /// Performs `action`; returns the answer to feed back, if the action has one.
    func perform(_ action: consuming ReconcilerAction) -> ReconcilerInput? {
        switch action {
        case .observeFile(let purpose, let unless):
            if let unless, FileIdentity.of(path: store.configuration.path) == unless {
                return withEditorLocks(.fileObserved(.sameIdentity(unless), for: purpose), if: purpose == .commit)
            }
            // The copy is released on return, before the comparison is applied in place.
            let document = machine.withLock { $0.context.document }
            let comparison = store.compare(with: document)
            // A changed file: what the editors beside it had loaded tells a stale save (read now,
            // while their locks still name the version their buffers came from). Before a commit:
            // a nano or Emacs lock there now dates its buffer before the client's write.
            let changed = if case .changed = comparison { true } else { false }
            return withEditorLocks(
                .fileObserved(.compared(comparison), for: purpose), if: changed || purpose == .commit)
        case .save(let request, let document, let expected):
            do throws(BookFileError) {
                if let appended = try store.appendIfPossible(request, onto: document, expected: expected) {
                    return .saveFinished(.success(appended))
                }
                return .saveFinished(.success(try store.save(request, onto: document, expected: expected)))
            } catch {
                return .saveFinished(.failure(error))
            }
        case .writeLateEdit(let merged, let replacing, let expected, let late):
            do throws(BookFileError) {
                let written = try store.writeCanonical(merged, replacing: replacing, expected: expected)
                return .lateEditWritten(.success(written), late: late, merged: merged)
            } catch {
                return .lateEditWritten(.failure(error), late: late, merged: merged)
            }
        case .writeMergedSave(let merged, let replacing, let expected):
            do throws(BookFileError) {
                let written = try store.writeCanonical(merged, replacing: replacing, expected: expected)
                return .mergedSaveWritten(.success(written), merged: merged)
            } catch {
                return .mergedSaveWritten(.failure(error), merged: merged)
            }
        case .storeConflicts(let conflicts):
            storeConflicts(conflicts)
        case .announceConflict(let event):
            channel?.broadcastConflict(event)
        case .keepInRecoveryFile(let content, let message):
            let kept =
                RecoveryFile.keep(content, beside: store.configuration.path) ?? "nowhere (it could not be written)"
            logger.error("\(message) \(kept)")
        case .readForConfirmation(let generation):
            return .confirmationRead(store.fetch(), generation: generation)
        case .scheduleConfirmation(let generation, let delay):
            after(delay) { $0.run(.confirmationTimerFired(generation: generation)) }
        case .scheduleVerification(let delay):
            after(delay) { engine in
                let waiting = !engine.inbox.withLock { $0.isEmpty }
                engine.run(.verificationTimerFired(writesWaiting: waiting))
            }
        case .scheduleReread(let delay):
            after(delay) { $0.run(.rereadTimerFired) }
        case .scheduleWriteRetry(let delay):
            after(delay) { $0.run(.writesReceived($0.takeInbox())) }
        case .process(let input):
            return input
        case .broadcast(let change):
            createDeferredHistory()
            history?.publish(change.seq)  // a store into a mapped page: no system call, no disk
            channel?.broadcast(change)
            publishedSeq.store(change.seq, ordering: .releasing)
        case .reply(let reply, let connection):
            channel?.send(reply, to: connection)
        case .startSubscription(let connection, let reply, let filter, let initialEvents, let afterSeq):
            channel?.startSubscription(
                connection, reply: reply, filter: filter, initialEvents: initialEvents,
                afterSeq: afterSeq)
            publishStatusAfterServerCounts()
        case .stream(let books, let connection):
            channel?.stream(books, to: connection)
        case .stopSubscription(let connection, let reply):
            channel?.stopSubscription(connection, reply: reply)
            publishStatusAfterServerCounts()
        case .log(let level, let message, let seq):
            logger.log(level, message, seq.map { ["BOOKS_SEQ": "\($0)"] } ?? [:])
        case .publishStatus:
            publishStatus()
        }
        return nil
    }

    /// Runs `body` on the queue after `delay`.
    private func after(_ delay: Duration, _ body: @escaping @Sendable (BookEngine) -> Void) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { body(self) }
    }

    // MARK: systemd status

    /// Sends `STATUS=` to systemd with a one-line summary, unless it equals the last one sent.
    func publishStatus() {
        guard notifier.isEnabled else { return }  // not under systemd: nobody reads the line
        let subscribers = channel?.statistics.subscribers ?? 0
        let line = machine.withLock { $0.statusLine(subscribers: subscribers) }
        if let sink = statusSink.withLock({ $0 }) {
            sink(line)  // several stores: the registry sends one summary
            return
        }
        notifier.statusIfChanged(line, last: lastStatusLine)
    }

    /// Sends `STATUS=` again unconditionally (after `READY=1`, so the line shown is current).
    public func republishStatus() {
        lastStatusLine.withLock { $0 = nil }
        queue.async { self.publishStatus() }
    }

    /// Publishes the status once the server applied what was posted so far (its subscriber count
    /// is updated on its own thread).
    func publishStatusAfterServerCounts() {
        guard notifier.isEnabled, let channel else { return }
        channel.afterPendingCommands { [self] in queue.async { self.publishStatus() } }
    }
}
