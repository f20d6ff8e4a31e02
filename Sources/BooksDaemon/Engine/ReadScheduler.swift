import BooksProtocol
import Glibc

/// The order in which one store answers the read requests of its connections: fair between
/// connections (the one that used the engine least recently goes first), first in, first out
/// within one connection. A value that does no I/O (the caller passes the time); the engine
/// keeps it behind a lock.
///
/// Guarantees:
/// - A connection's reads run in the order it sent them.
/// - The next read is the first waiting one of the connection whose recent engine time is the
///   least: each read adds the time it took to its connection's usage, which halves every
///   ``halfLife``. So a client sending cheap reads waits for the one read that is running, not
///   for the costly ones other connections keep sending; costly readers take turns between them
///   (each waits behind its own), and none is starved: a connection's usage only grows while it
///   is served.
/// - At most one "run the next read" job is asked for at a time (``enqueue(_:from:)`` says when),
///   so reads never fill the engine's queue ahead of writes and file events.
/// - Memory: the waiting reads (at most `max_pending_requests` per connection, bounded by the
///   server), plus the usage of connections that read recently.
struct ReadScheduler<Read: Sendable>: Sendable {
    /// How fast past engine time is forgiven.
    static var halfLife: Duration { .seconds(1) }

    private struct Waiting: Sendable {
        var reads: [Read] = []
        var head = 0
        /// When the connection's first waiting read arrived (ties go to the oldest).
        var arrival: UInt64
        var isEmpty: Bool { head >= reads.count }

        /// Takes the first read (the caller checked there is one).
        mutating func takeFirst() -> Read {
            let read = reads[head]
            head += 1
            if head > 32 && head * 2 > reads.count {
                reads.removeFirst(head)
                head = 0
            }
            return read
        }
    }

    /// A connection's engine time in seconds, decayed to `at`.
    private struct Usage: Sendable {
        var seconds: Double
        var at: Duration

        func decayed(to now: Duration) -> Double {
            let elapsed = Double((now - at) / ReadScheduler.halfLife)
            return elapsed <= 0 ? seconds : seconds * exp2(-elapsed)
        }
    }

    private var waiting: [ReplyTarget: Waiting] = [:]
    private var usage: [ReplyTarget: Usage] = [:]
    private var arrivals: UInt64 = 0
    /// Whether a job that runs the next read is queued or running.
    private(set) var jobScheduled = false
    /// Reads waiting, all connections together.
    private(set) var count = 0

    /// An empty scheduler.
    init() {}

    /// Queues `read` of `connection`; returns true when the caller must queue a job that calls
    /// ``next(now:)`` (none is queued or running).
    mutating func enqueue(_ read: Read, from connection: ReplyTarget) -> Bool {
        arrivals += 1
        waiting[connection, default: Waiting(arrival: arrivals)].reads.append(read)
        count += 1
        guard !jobScheduled else { return false }
        jobScheduled = true
        return true
    }

    /// The read to run now, and its connection; nil (and no job scheduled any more) when none waits.
    mutating func next(now: Duration) -> (ReplyTarget, Read)? {
        var best: (id: ReplyTarget, used: Double, arrival: UInt64)?
        for (id, queue) in waiting {
            let used = usage[id]?.decayed(to: now) ?? 0
            if let chosen = best, (chosen.used, chosen.arrival) < (used, queue.arrival) { continue }
            best = (id, used, queue.arrival)
        }
        guard let best, let read = waiting[best.id]?.takeFirst() else {
            jobScheduled = false
            return nil
        }
        count -= 1
        if waiting[best.id]?.isEmpty == true { waiting[best.id] = nil }
        return (best.id, read)
    }

    /// The read of `connection` that ``next(now:)`` returned took `cost` of engine time, ending
    /// at `now`. Returns true when another read waits (the caller queues the next job); false
    /// clears the job.
    mutating func finished(_ connection: ReplyTarget, cost: Duration, now: Duration) -> Bool {
        let spent = Double(max(cost, .zero) / .seconds(1))
        usage[connection] = Usage(seconds: (usage[connection]?.decayed(to: now) ?? 0) + spent, at: now)
        if usage.count > 2 * waiting.count + 64 {
            // Forgotten usage: less than a microsecond left.
            usage = usage.filter { $0.value.decayed(to: now) >= 1e-6 || waiting[$0.key] != nil }
        }
        jobScheduled = count > 0
        return jobScheduled
    }

    /// Forgets the waiting reads of `connection` (it closed); returns how many were dropped.
    @discardableResult
    mutating func drop(_ connection: ReplyTarget) -> Int {
        usage[connection] = nil
        guard let queue = waiting.removeValue(forKey: connection) else { return 0 }
        let dropped = queue.reads.count - queue.head
        count -= dropped
        return dropped
    }
}
