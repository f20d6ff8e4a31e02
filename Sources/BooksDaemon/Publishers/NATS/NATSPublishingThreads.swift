import BooksNATS
import BooksPlatform
import Dispatch

/// The threads every store's ``NATSPublisher`` of one daemon runs on: at most `count`
/// (`booksd-nats`), however many stores, each carrying the publishers assigned to it in turn.
///
/// Guarantees:
/// - A publisher runs on one thread from its `start` to its `stop`; its inputs are taken and
///   its actions carried out there, in order, as on a thread of its own.
/// - A thread runs only while it has publishers (it is started with the first and returns after
///   the last one stopped), so an idle daemon keeps none.
/// - Posting to a publisher (`ready`) never blocks: a leaf lock for an append, and a semaphore.
/// - A publisher's blocking NATS call delays only the publishers that share its thread (about
///   one in `count`), never local service.
final class NATSPublishingThreads: Sendable {
    /// One thread and what it carries.
    final class Worker: Sendable {
        struct State: Sendable {
            /// Publishers handed over, not yet taken by the thread.
            var starting: [NATSPublisherStart] = []
            /// Publishers with something posted since the thread last looked.
            var ready: Set<ObjectIdentifier> = []
            /// Publishers the thread carries (counted here for the assignment).
            var load = 0
            var running = false
        }

        let state = Locked(State())
        let wake = DispatchSemaphore(value: 0)

        /// Marks `publisher` as having work and wakes the thread.
        func ready(_ publisher: NATSPublisher) {
            state.withLock { _ = $0.ready.insert(ObjectIdentifier(publisher)) }
            wake.signal()
        }

        /// Hands `start` over; starts the thread when it does not run.
        func add(_ start: NATSPublisherStart) throws(DedicatedThreadError) {
            let spawn = state.withLock { state -> Bool in
                state.starting.append(start)
                state.load += 1
                defer { state.running = true }
                return !state.running
            }
            if spawn {
                do throws(DedicatedThreadError) {
                    _ = try DedicatedThread.start(name: "booksd-nats") { [self] in run() }
                } catch {
                    state.withLock { state in
                        state.starting.removeAll { $0.publisher === start.publisher }
                        state.load -= 1
                        state.running = false
                    }
                    throw error
                }
            } else {
                wake.signal()
            }
        }

        /// The thread: takes new publishers, runs one round of each that has work or whose
        /// deadline came, sleeps until the next post or deadline; returns when it has none left.
        private func run() {
            var loops: [ObjectIdentifier: NATSPublisherLoop] = [:]
            let batches = NATSBatchPublisherSlot()
            while true {
                let (starting, ready, exit) = state.withLock { state in
                    defer {
                        state.starting.removeAll()
                        state.ready.removeAll()
                    }
                    let exit = loops.isEmpty && state.starting.isEmpty
                    if exit { state.running = false }
                    return (state.starting, state.ready, exit)
                }
                if exit { return }
                for start in starting {
                    var loop = NATSPublisherLoop(publisher: start.publisher, machine: start.machine, batches: batches)
                    if start.initiallyConnected { loop.feed(.connected) }
                    loops[ObjectIdentifier(start.publisher)] = loop
                }
                let fresh = Set(starting.map { ObjectIdentifier($0.publisher) })
                let now = ContinuousClock.now
                var finished: [ObjectIdentifier] = []
                for id in Array(loops.keys) {
                    let due = loops[id]?.deadline.map { $0 <= now } ?? false
                    guard ready.contains(id) || due || fresh.contains(id) else { continue }
                    if loops[id]?.step() == true { finished.append(id) }
                }
                for id in finished {
                    guard let loop = loops.removeValue(forKey: id) else { continue }
                    state.withLock { $0.load -= 1 }
                    loop.publisher.finished.signal()
                }
                if loops.isEmpty { continue }  // returns at the top unless a publisher came meanwhile
                sleep(until: loops.values.compactMap(\.deadline).min())
            }
        }

        private func sleep(until deadline: ContinuousClock.Instant?) {
            guard let deadline else { return wake.wait() }
            let left = ContinuousClock.now.duration(to: deadline)
            let nanoseconds =
                Int(left.components.seconds) * 1_000_000_000 + Int(left.components.attoseconds / 1_000_000_000)
            _ = wake.wait(timeout: .now() + .nanoseconds(max(0, nanoseconds)))
        }
    }

    /// The most threads publishing runs on.
    let count: Int
    private let workers: [Worker]

    /// Up to `count` threads (at least one).
    init(count: Int = 4) {
        self.count = max(1, count)
        workers = (0..<max(1, count)).map { _ in Worker() }
    }

    /// Runs `start`'s publisher on the least loaded thread; returns that thread's worker.
    func run(_ start: NATSPublisherStart) throws(DedicatedThreadError) -> Worker {
        let worker = workers.min { a, b in a.state.withLock { $0.load } < b.state.withLock { $0.load } } ?? workers[0]
        try worker.add(start)
        return worker
    }
}

/// What a publishing thread needs to take a publisher on.
struct NATSPublisherStart: Sendable {
    let publisher: NATSPublisher
    let machine: NATSPublisherStateMachine
    let initiallyConnected: Bool
}

/// The JetStream batch publisher of one publishing thread, made when its first store prepares and
/// shared by the thread's stores. One per store would cost a library thread each (the context's
/// acknowledgement subscription has a delivery thread of its own); sharing is safe because the
/// thread runs one `publish` at a time and each returns with nothing left in flight (what was
/// not acknowledged in time is taken back). Confined to its thread: not `Sendable`.
final class NATSBatchPublisherSlot {
    private var made: JetStreamBatchPublisher?

    /// The thread's batch publisher on `connection` (every store of a daemon shares one).
    func publisher(on connection: NATSConnection) throws(NATSError) -> JetStreamBatchPublisher {
        if let made, made.connection === connection { return made }
        let fresh = try JetStreamBatchPublisher(connection: connection)
        made = fresh
        return fresh
    }
}
