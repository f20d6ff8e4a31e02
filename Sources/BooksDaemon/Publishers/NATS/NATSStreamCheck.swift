import BooksCore
import BooksProtocol

/// Decides whether the stream's last message is one this booksd wrote, by comparing it with the
/// local history, before its position is believed. Pure.
///
/// Anyone allowed to publish on the subject can append to the stream; believing a message's id
/// alone let a forged change set stand in for a real one, or a forged seq far ahead stop
/// publishing for good. A message is believed only when it is in this store's format and
/// - of another lineage (a restarted engine: what follows is a snapshot marker anyway), or
/// - a change set (or one of its parts) whose books are those of the local change log at its
///   seq, or a snapshot marker, in both cases not ahead of the engine's seq.
struct NATSStreamCheck {
    /// What the stream's last message says.
    enum Verdict: Sendable, Equatable {
        /// Believed: the stream ends at this position (nil: it holds nothing of this store).
        case position(ResumePoint?)
        /// Not believed (`reason` says why, for the log): the stream is continued with a snapshot marker.
        case untrusted(String)
    }

    let naming: NATSNaming
    /// This engine's lineage.
    let epoch: String

    /// The seq whose local change set `verdict` needs, or nil when it needs none.
    func seqToCompare(messageID: String?) -> UInt64? {
        guard let messageID, let parsed = naming.parse(messageID: messageID), parsed.epoch == epoch,
            !parsed.snapshot
        else { return nil }
        return parsed.seq
    }

    /// The verdict on the last message (`data`, `messageID`; nil: the stream holds none), with the
    /// engine at `latestSeq` and `local` its change set at `seqToCompare(messageID:)` (nil when
    /// its log no longer holds it).
    func verdict(
        data: [UInt8]?, messageID: String?, latestSeq: UInt64, local: SequencedChangeSet?
    ) -> Verdict {
        guard let data else { return .position(nil) }
        guard let messageID, let parsed = naming.parse(messageID: messageID),
            let position = naming.position(fromMessageID: messageID)
        else {
            return .untrusted("its message id \(messageID.map { "'\($0)'" } ?? "(none)") is not one booksd writes")
        }
        guard position.epoch == epoch else { return .position(position) }
        guard case .event(let event)? = try? MessageDecoder().decode(data), event.epoch == epoch else {
            return .untrusted("message \(messageID) is not a change set or snapshot marker of this lineage")
        }
        if parsed.snapshot {
            guard event.event == .snapshot, event.seq == position.seq, event.seq <= latestSeq else {
                return .untrusted("snapshot marker \(messageID) is ahead of this booksd's seq \(latestSeq)")
            }
            return .position(position)
        }
        let seq = parsed.seq
        guard event.event == .change, event.seq == seq else {
            return .untrusted("message \(messageID) does not hold the change set its id names")
        }
        guard let local, local.seq == seq else {
            if seq > latestSeq { return .untrusted("change set \(seq) is ahead of this booksd's seq \(latestSeq)") }
            return .untrusted("change set \(seq) can no longer be compared with the local history")
        }
        let whole = parsed.part == nil
        guard Self.matches(event, local.changes, whole: whole) else {
            return .untrusted("change set \(seq) in the stream differs from the local history")
        }
        return .position(position)
    }

    /// Whether `event`'s books are `changes` (`whole`) or a part of them.
    private static func matches(_ event: Event, _ changes: ChangeSet, whole: Bool) -> Bool {
        let inserted = event.inserted ?? []
        let updated = event.updated ?? []
        let deleted = event.deleted ?? []
        if whole { return inserted == changes.inserted && updated == changes.updated && deleted == changes.deleted }
        return Set(inserted).isSubset(of: changes.inserted) && Set(updated).isSubset(of: changes.updated)
            && Set(deleted).isSubset(of: changes.deleted)
    }
}
