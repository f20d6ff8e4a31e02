import BooksCore
import BooksProtocol

/// What a replica's feed has announced: the owner position, and the owner's last change sets
/// (a bounded log in memory) a subscriber resuming in the owner's lineage is replayed from.
///
/// Pure. The log holds consecutive change sets ending at `position` (a jump empties it); the
/// shell keeps what was announced in the state directory (`ReplicaFeedJournal`) and replays it
/// into a new feed at restart, so a resume is served across a replica restart as before it.
struct ReplicaFeed: Sendable {
    /// The owner position announced last (nil: none yet).
    private(set) var position: (epoch: String, seq: UInt64)?
    private var log: [SequencedChangeSet] = []
    private var head = 0
    /// At most this many change sets are kept.
    let limit: Int
    /// Resumes waiting for their subscription to start, per subscriber.
    private var resumes: [ReplyTarget: Decision] = [:]

    private enum Decision: Sendable {
        case replay(after: ResumePoint)
        case resync(reason: String)
    }

    init(limit: Int = 4096) { self.limit = max(limit, 4) }

    /// Takes the owner's change set `change` as announced.
    mutating func announce(_ change: SequencedChangeSet) {
        if let position, position.epoch != change.epoch || change.seq != position.seq + 1 { clear() }
        position = (change.epoch, change.seq)
        log.append(change)
        if log.count - head > limit { head += 1 }
        if head >= limit {
            log.removeFirst(head)
            head = 0
        }
    }

    /// The change sets kept (consecutive, ending at `position`), oldest first.
    var kept: [SequencedChangeSet] { Array(log[head...]) }

    /// Moves to `epoch`/`seq` without change sets (the owner's books were read again).
    mutating func jump(epoch: String, seq: UInt64) {
        clear()
        position = (epoch, seq)
    }

    /// How a subscription that asked to resume starts.
    enum Start: Sendable, Equatable {
        /// It asked for no resume: as the engine answered.
        case plain
        /// Replayed: these change sets, then live ones.
        case replay([SequencedChangeSet])
        /// The resume point cannot be served (`resync-required` with `reason`).
        case resync(reason: String)
    }

    /// Decides how `subscriber`, resuming after `point` (nil: a bound that names no seq), starts:
    /// true when it is replayed from the log (`point` in the owner lineage announced, not ahead of
    /// it, and, with room for change sets announced before the subscription starts, in the log).
    mutating func resume(_ subscriber: ReplyTarget, after point: ResumePoint?) -> Bool {
        let decision = decide(point)
        resumes[subscriber] = decision
        if case .replay = decision { return true }
        return false
    }

    /// How `subscriber`'s subscription, starting now, starts (see `resume(_:after:)`).
    mutating func start(_ subscriber: ReplyTarget) -> Start {
        guard let decision = resumes.removeValue(forKey: subscriber) else { return .plain }
        guard case .replay(let point) = decision else {
            if case .resync(let reason) = decision { return .resync(reason: reason) }
            return .plain
        }
        guard let position, point.epoch == position.epoch else { return .resync(reason: "different-epoch") }
        if point.seq == position.seq { return .replay([]) }
        let kept = log[head...]
        guard let oldest = kept.first?.seq, point.seq + 1 >= oldest else { return .resync(reason: "history-trimmed") }
        return .replay(Array(kept.dropFirst(Int(point.seq + 1 - oldest))))
    }

    /// Forgets a resume decided for `subscriber` (its subscribe was refused).
    mutating func forget(_ subscriber: ReplyTarget) { resumes[subscriber] = nil }

    private func decide(_ point: ResumePoint?) -> Decision {
        guard let point else { return .resync(reason: "history-trimmed") }
        guard let position, point.epoch == position.epoch else { return .resync(reason: "different-epoch") }
        guard point.seq <= position.seq else { return .resync(reason: "future-seq") }
        guard point.seq < position.seq else { return .replay(after: point) }
        guard let oldest = log[head...].first?.seq, point.seq + 1 >= oldest,
            position.seq - point.seq <= UInt64(limit - limit / 4)
        else { return .resync(reason: "history-trimmed") }
        return .replay(after: point)
    }

    private mutating func clear() {
        log.removeAll()
        head = 0
    }
}
