import BooksCore
import BooksProtocol

/// A change feed without a mirror: constant memory whatever the number of books (the position,
/// nothing else). The state machine behind `ResilientSubscription(mirror: false)`.
///
/// - The feed is subscribed without snapshot (`snapshot: false`): it starts at the daemon's
///   current position (`.subscribed`), and changes are reported as the daemon sends them.
/// - A change whose seq is ≤ the last seen seq of the same epoch is a replay and ignored.
/// - When the daemon cannot replay what was missed (`resync-required`: history trimmed, a new
///   epoch), there is no mirror to diff against: one update with origin `.resyncRequired` (no
///   changes, the reason) marks the gap, and the feed goes on from the daemon's position.
public struct PlainFeedState: Sendable, Hashable {
    /// The last position seen; nil before the first subscription answered.
    public private(set) var resumePoint: ResumePoint?

    /// Creates a state with no position.
    public init() {}

    /// Creates a state that resumes after `point` (a saved cursor): the first subscription asks the
    /// daemon to replay from there, and a stale point yields one `.resyncRequired` update.
    public init(resumingAt point: ResumePoint?) { resumePoint = point }

    /// Applies one feed item; returns what to report, or nil.
    public mutating func apply(_ item: FeedItem) -> MirrorUpdate? {
        switch item {
        case .subscribed(let point):
            // On a resumed connection the replay (or a resync marker) follows: keep the old point.
            if resumePoint == nil { resumePoint = point }
            return nil
        case .change(let change):
            if let point = resumePoint, point.epoch == change.epoch, change.seq <= point.seq { return nil }
            resumePoint = ResumePoint(epoch: change.epoch, seq: change.seq)
            guard !change.changes.isEmpty else { return nil }
            return MirrorUpdate(
                epoch: change.epoch, seq: change.seq, source: change.source, time: change.time, origin: .live,
                changes: change.changes, actor: change.actor)
        case .resyncRequired(let epoch, let seq, let reason):
            resumePoint = ResumePoint(epoch: epoch, seq: seq)
            return MirrorUpdate(
                epoch: epoch, seq: seq, source: nil, time: nil, origin: .resyncRequired, changes: ChangeSet(),
                reason: reason)
        case .heartbeat(let point):
            if let current = resumePoint, current.epoch == point.epoch, point.seq > current.seq { resumePoint = point }
            return nil
        case .snapshot(let snapshot):
            resumePoint = ResumePoint(epoch: snapshot.epoch, seq: snapshot.seq)
            return nil
        case .shutdown, .conflict:
            return nil
        }
    }
}
