import BooksCore
import BooksProtocol
import Glibc
import Testing

@testable import BooksMachines

/// Carries out a ``ReconcilerStateMachine``'s actions against a file held in memory: the pure
/// core under test with no file, no thread and no clock. Timers are recorded and fired by the
/// test; saves change the in-memory file (or fail, as the test asks).
struct ReconcilerDriver {
    enum Timer: Equatable {
        case confirmation(generation: Int, after: Duration)
        case verification
        case writeRetry
        case reread
    }

    var machine: ReconcilerStateMachine
    /// The file's content; nil when there is no file.
    var file: [UInt8]?
    /// Bumped on every change to the file, so the identity changes with it.
    var fileVersion = 1
    var broadcasts: [SequencedChangeSet] = []
    /// The file's content when each change set was broadcast (a subscriber reading it at once).
    var filesAtBroadcasts: [[UInt8]?] = []
    var replies: [(ReplyTarget, Reply)] = []
    var subscriptions: [(ReplyTarget, [Event], UInt64)] = []
    var logs: [(LogLevel, String)] = []
    var timers: [Timer] = []
    var saves = 0
    var fileReads = 0
    /// Runs before each save; returning an error makes the save fail with it (a racing editor).
    var beforeSave: ((inout ReconcilerDriver) -> BookFileError?)?
    /// When set, every read of the file fails with it (an I/O error).
    var readError: BookFileError?
    /// The editor locks beside the file (read with each comparison that finds a change, and before each commit).
    var locks: [EditorLock] = []
    /// The conflicts last stored.
    var storedConflicts: [RecordedConflict]?
    /// The `conflict` events announced, each after the broadcasts made before it (`broadcasts.count` then).
    var announced: [(event: Event, afterBroadcasts: Int)] = []
    /// Runs before a merged save is written; returning an error makes the write fail with it.
    var beforeMergedWrite: ((inout ReconcilerDriver) -> BookFileError?)?
    /// What a process wrote to the version a merged save replaced, just as it was replaced (the
    /// write's `lateEdit`), once.
    var lateEditOfMergedWrite: [UInt8]?
    private var nextID = 0
    /// The file's inode (a rename over the file gives it a new one).
    var inode: UInt64 = 7
    /// The file's birth time, as statx reports it (nil: not recorded).
    var born: timespec?

    init(_ text: String?, confirmation: Duration = .seconds(1)) {
        machine = ReconcilerStateMachine(
            configuration: .init(path: "books.txt", confirmationDelay: confirmation),
            epoch: "E")
        file = text.map { Array($0.utf8) }
        run(.loaded(snapshot()))
    }

    // MARK: The in-memory file

    var text: String? { file.map { String(decoding: $0, as: UTF8.self) } }

    /// An edit by another program: the new content (nil: the file is gone).
    mutating func edit(_ text: String?) {
        file = text.map { Array($0.utf8) }
        fileVersion += 1
    }

    /// The file's identity: changes whenever the content was written.
    var identity: FileIdentity? {
        guard let file else { return nil }
        var identity = FileIdentity(
            device: 1, inode: UInt64(inode), size: file.count, modified: timespec(tv_sec: fileVersion, tv_nsec: 0),
            changed: timespec(tv_sec: fileVersion, tv_nsec: 0), mode: 0, owner: 0, group: 0)
        identity.born = born
        return identity
    }

    /// The identity after the daemon's own write: placed at the second its version names.
    var placedIdentity: FileIdentity? {
        var identity = identity
        identity?.placed = timespec(tv_sec: fileVersion, tv_nsec: 0)
        return identity
    }

    func snapshot() -> BookStoreSnapshot {
        guard let file, let identity else { return .missing }
        return .present(canonical: file, identity: identity)
    }

    // MARK: Running

    /// Feeds `input` and carries out the actions, depth first, as `BookEngine` does.
    mutating func run(_ input: ReconcilerInput) {
        var stack = Array(machine.handle(input).reversed())
        while let action = stack.popLast() {
            if let answer = perform(action) { stack.append(contentsOf: machine.handle(answer).reversed()) }
        }
    }

    /// A watcher event.
    mutating func event(_ event: FileWatchEvent = .contentMayHaveChanged) { run(.fileEvent(event)) }

    /// Client writes arriving together (over `transport`: a replica's own writes are `.replica`;
    /// `withoutRead`: marked `writesWithoutRead`, as a replica's writes of the owner's books are).
    mutating func write(
        _ requests: [(String, WriteOperation)], connection: UInt64 = 1, transport: ReplyTarget.Transport = .socket,
        withoutRead: Bool = false
    ) {
        run(
            .writesReceived(
                requests.map {
                    var write = PendingWrite(
                        requestID: $0.0, connection: ReplyTarget(transport, connection), operation: $0.1)
                    write.writesWithoutRead = withoutRead
                    return write
                }))
    }

    /// Fires the oldest pending timer of `kind` (false when none is pending).
    @discardableResult
    mutating func fire(_ kind: (Timer) -> Bool, writesWaiting: Bool = false) -> Bool {
        guard let index = timers.firstIndex(where: kind) else { return false }
        let timer = timers.remove(at: index)
        switch timer {
        case .confirmation(let generation, _): run(.confirmationTimerFired(generation: generation))
        case .verification: run(.verificationTimerFired(writesWaiting: writesWaiting))
        case .writeRetry: run(.writesDue)
        case .reread: run(.rereadTimerFired)
        }
        return true
    }

    /// Fires confirmation timers until none is pending (the file stood still).
    mutating func settle() {
        var rounds = 0
        while fireConfirmation(), rounds < 10 { rounds += 1 }
    }

    mutating func fireConfirmation() -> Bool { fire { if case .confirmation = $0 { true } else { false } } }
    mutating func fireVerification(writesWaiting: Bool = false) -> Bool {
        fire({ $0 == .verification }, writesWaiting: writesWaiting)
    }
    mutating func fireRetry() -> Bool { fire { $0 == .writeRetry } }
    mutating func fireReread() -> Bool { fire { $0 == .reread } }

    private mutating func perform(_ action: ReconcilerAction) -> ReconcilerInput? {
        switch action {
        case .observeFile(let purpose, let unless):
            // As the engine: the locks are read with a comparison that finds a change, and before a commit.
            let answer: ReconcilerInput
            var changed = false
            if let unless, identity == unless {
                answer = .fileObserved(.sameIdentity(unless), for: purpose)
            } else {
                fileReads += 1
                let comparison = compare()
                if case .changed = comparison { changed = true }
                answer = .fileObserved(.compared(comparison), for: purpose)
            }
            guard changed || purpose == .commit, !locks.isEmpty || machine.awaitsLockLook else { return answer }
            return .editorLocksSeen(locks, then: answer)
        case .save(let request, let document, let expected):
            saves += 1
            if let error = beforeSave?(&self) { return .saveFinished(.failure(error)) }
            guard identity == expected else { return .saveFinished(.failure(.changedDuringWrite(path: "books.txt"))) }
            return .saveFinished(.success(save(request, onto: document)))
        case .writeLateEdit(let merged, _, _, let late):
            file = merged
            fileVersion += 1
            return .lateEditWritten(
                .success(AtomicWriteResult(identity: identity!, lateEdit: nil)), late: late, merged: merged)
        case .writeMergedSave(let merged, let replacing, let expected):
            if let error = beforeMergedWrite?(&self) { return .mergedSaveWritten(.failure(error), merged: merged) }
            guard identity == expected, file == replacing else {
                return .mergedSaveWritten(.failure(.changedDuringWrite(path: "books.txt")), merged: merged)
            }
            file = merged
            fileVersion += 1
            defer { lateEditOfMergedWrite = nil }
            return .mergedSaveWritten(
                .success(AtomicWriteResult(identity: identity!, lateEdit: lateEditOfMergedWrite)), merged: merged)
        case .storeConflicts(let conflicts):
            storedConflicts = conflicts
        case .announceConflict(let event):
            announced.append((event, broadcasts.count))
        case .keepInRecoveryFile(_, let message):
            logs.append((.error, message))
        case .readForConfirmation(let generation):
            fileReads += 1
            return .confirmationRead(snapshot(), generation: generation)
        case .scheduleConfirmation(let generation, let delay):
            timers.append(.confirmation(generation: generation, after: delay))
        case .scheduleVerification:
            timers.append(.verification)
        case .scheduleWriteRetry:
            timers.append(.writeRetry)
        case .scheduleReread:
            timers.append(.reread)
        case .process(let input):
            return input
        case .broadcast(let change):
            broadcasts.append(change)
            filesAtBroadcasts.append(file)
        case .reply(let reply, let connection):
            replies.append((connection, reply))
        case .startSubscription(let connection, let reply, _, let events, let afterSeq):
            replies.append((connection, reply))
            subscriptions.append((connection, events, afterSeq))
        case .stream(var books, let connection):
            switch try? MessageDecoder().decode(books.encodeRest()) {
            case .reply(let reply):
                replies.append((connection, reply))
            case .event(let snapshot):
                if let k = subscriptions.lastIndex(where: { $0.0 == connection }) {
                    subscriptions[k].1.append(snapshot)
                }
            case nil:
                Issue.record("a streamed message does not decode")
            }
        case .stopSubscription(let connection, let reply):
            replies.append((connection, reply))
        case .log(let level, let message, _):
            logs.append((level, message))
        case .publishStatus:
            break
        }
        return nil
    }

    private func compare() -> FileComparison {
        if let readError { return .unavailable(readError) }
        guard let file, let identity else { return .missing }
        let held = machine.context.document.bytes
        if held == file { return .unchanged(identity: identity) }
        return .changed(ByteSplice(from: held, to: file), identity: identity)
    }

    /// The text store's save, on the in-memory file, with predictable ids (`n1`, `n2`, …).
    private mutating func save(_ request: SaveRequest, onto document: BookDocument) -> SaveResult {
        var edits: [DocumentEdit] = []
        var remapped: [IdentifierRemap] = []
        var inserted: [Book] = []
        for book in request.updated { edits.append(.replace(line: document.lineIndex(ofBook: book.id)!, with: book)) }
        for id in request.deleted { edits.append(.delete(line: document.lineIndex(ofBook: id)!)) }
        if request.assignIDsToNewRows {
            for row in document.newBookRows {
                nextID += 1
                edits.append(
                    .replace(line: row.lineIndex, with: Book(id: "n\(nextID)", name: row.name, author: row.author)))
                remapped.append(IdentifierRemap(temporaryID: "line:\(row.lineIndex + 1)", permanentID: "n\(nextID)"))
            }
        }
        for insertion in request.inserted {
            nextID += 1
            let book = Book(id: insertion.id ?? "n\(nextID)", name: insertion.name, author: insertion.author)
            edits.append(.append(book))
            inserted.append(book)
        }
        let canonical = document.rendering(edits)
        file = canonical
        fileVersion += 1
        return SaveResult(
            splice: ByteSplice(from: document.bytes, to: canonical), identity: placedIdentity!,
            remapped: remapped, inserted: inserted)
    }
}
