import BooksCore
import BooksProtocol

/// What a replica's feed owes its subscribers: an owner change set the machine applied, or a new
/// owner position (the owner's books read again), announced once the file holds it.
enum ReplicaAnnouncement: Sendable, Equatable {
    case change(SequencedChangeSet)
    case jump(epoch: String, seq: UInt64)
}

/// The replica's feed in the owner's seqs: the owner's change sets, as read from its stream, are
/// broadcast to the replica's subscribers (through `ReplicaChannelRouter.announce`) in the order
/// applied, each once the file holds it: the local write that carried it finished, or no row
/// needed one (a hand edit made here comes back as the owner's change set and is announced then).
extension ReplicaLink {
    /// Notes what the machine took of `input` (its position moved from `before`): an owner change
    /// set or snapshot it applied is owed to the feed.
    func noteApplied(_ input: ReplicaInput, before: (epoch: String?, seq: UInt64)) {
        let after = machine.withLock { ($0?.record.epoch, $0?.record.seq ?? 0) }
        guard let epoch = after.0, after.0 != before.epoch || after.1 != before.seq else { return }
        switch input {
        case .ownerChanged(let change) where change.epoch == epoch && change.seq == after.1:
            unannounced.withLock { $0.append(.change(change)) }
        case .ownerSnapshot:
            unannounced.withLock { $0.append(.jump(epoch: epoch, seq: after.1)) }
        default:
            break
        }
    }

    /// Announces, in order, the owed change sets the file holds; stops at the first it does not.
    func announceHeld() {
        guard let router = router.withLock({ $0 }) else { return }
        while let next = unannounced.withLock({ $0.first }) {
            let held = machine.withLock { machine -> Bool in
                guard let machine else { return false }
                switch next {
                case .change(let change):
                    let ids =
                        change.changes.inserted.map(\.id) + change.changes.updated.map(\.new.id)
                        + change.changes.deleted.map(\.id)
                    return !ids.contains(where: machine.awaitsLocalWrite)
                case .jump:
                    return machine.fileHoldsOwnerState
                }
            }
            guard held else { return }
            unannounced.withLock { _ = $0.removeFirst() }
            switch next {
            case .change(let change): router.announce(change)
            case .jump(let epoch, let seq): router.jump(epoch: epoch, seq: seq)
            }
            keepAnnounced(next, router: router)
            firstPosition.withLock { $0.take() }?()
        }
    }

    /// Starts the feed where it was: what it announced before (`ReplicaFeedJournal`), at the
    /// record's position.
    func restoreFeed(_ record: ReplicaRecord) {
        guard let directory = records.withLock({ $0?.directory }) else { return }
        var journal = ReplicaFeedJournal(directory: directory)
        let announced = journal.load()
        feedJournal.withLock { [journal] in $0 = journal }
        guard let epoch = record.epoch else { return }
        router.withLock { $0 }?.restore(announced, epoch: epoch, seq: record.seq)
        firstPosition.withLock { $0.take() }?()
    }

    /// Keeps `announcement` in the journal. A failure is logged once and ends the journal until
    /// the next start (a resume after that restart gets `resync-required`: the journal then ends
    /// before the record's position; nothing else depends on it).
    private func keepAnnounced(_ announcement: ReplicaAnnouncement, router: ReplicaChannelRouter) {
        guard var journal = feedJournal.withLock({ $0 }) else { return }
        do {
            try journal.keep(announcement, limit: router.keptLimit, log: { router.kept })
            feedJournal.withLock { [journal] in $0 = journal }
        } catch {
            feedJournal.withLock { $0 = nil }
            logger.warning(
                "replica: cannot keep what the feed announced (\(error)); until a restart, a subscriber resuming "
                    + "after one gets resync-required", fields)
        }
    }
}
