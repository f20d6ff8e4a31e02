import BooksNATS
import BooksProtocol
import Glibc

/// A store's change feed read from its JetStream stream (`<prefix>.<store>.changes`) with an
/// ephemeral ordered consumer: every message in stream order, none twice.
///
/// A change set booksd split into parts (it was larger than the server's `max_payload`) is
/// delivered once, whole, with the stream sequence of its last part (`NATSPartAssembler`).
///
/// After a failure of the consumer (a server restart, a lost connection the library could not
/// bridge), `run` re-creates it at the stream sequence after the last one delivered, so the caller
/// sees no gap and no repeat. Blocking: call `run` from a dedicated thread.
public final class NATSFeed: Sendable {
    /// One message of the stream.
    public struct Item: Sendable, Equatable {
        /// The stream sequence (resume point).
        public var streamSequence: UInt64
        /// How many messages of the stream were still to come after this one when it was sent
        /// (0 when the server did not say): how far behind the stream's end the reader is.
        public var pending: UInt64 = 0
        /// The store the message is for.
        public var store: String
        /// The event: `change` for a change set, `snapshot` for a snapshot marker (the bucket holds
        /// the books at its seq: change sets before it may be missing from the stream).
        public var event: Event
    }

    let connection: NATSConnection
    let subject: String
    /// The store, its prefix, stream (`<prefix>_<store>_changes`) and bucket (`<prefix>_<store>`).
    let names: (prefix: String, store: String, stream: String, bucket: String)

    /// Connects to `options.urls` for the feed of `store` under `prefix`.
    /// - Throws: `.nats` when no server can be reached.
    public init(
        options: NATSConnectOptions, prefix: String = "books", store: String = "default"
    )
        throws(BooksClientError)
    {
        do {
            connection = try NATSConnection.connect(options)
        } catch {
            throw .nats(error.description)
        }
        subject = NATSNaming.changesSubject(prefix: prefix, store: store)
        names = (
            prefix, store, NATSNaming.streamName(prefix: prefix, store: store),
            NATSNaming.bucketName(prefix: prefix, store: store)
        )
    }

    /// The feed of `store` under `prefix` over an open `connection` (shared with its owner, e.g.
    /// a booksd replica's, which reconnects on its own).
    public init(connection: NATSConnection, prefix: String = "books", store: String = "default") {
        self.connection = connection
        subject = NATSNaming.changesSubject(prefix: prefix, store: store)
        names = (
            prefix, store, NATSNaming.streamName(prefix: prefix, store: store),
            NATSNaming.bucketName(prefix: prefix, store: store)
        )
    }

    /// Delivers every message from `start` on, in order, until `deliver` returns false.
    /// `onNotice` hears about recoveries (for stderr).
    /// A stream that cannot be read (not created yet, JetStream restarting) is retried with
    /// a growing pause (up to 2 s), announced once through `onNotice`.
    /// `isCancelled` is asked after every wait (at most ~2 s apart, 250 ms while the stream is read): true ends `run`.
    public func run(
        from start: NATSDeliveryStart, onNotice: @Sendable (String) -> Void = { _ in },
        isCancelled: () -> Bool = { false }, deliver: (Item) -> Bool
    ) {
        var position = start
        var lastSequence: UInt64?
        var failures = 0
        let decoder = MessageDecoder()
        var parts = NATSPartAssembler()
        while !isCancelled() {
            let subscription: NATSOrderedSubscription
            do {
                subscription = try connection.jetStream().orderedSubscription(subject, from: position)
                failures = 0
            } catch {
                failures += 1
                if failures == 1 { onNotice("cannot read \(subject) yet (\(error)); retrying") }
                sleepMilliseconds(min(2000, 100 * failures))
                continue
            }
            while !isCancelled() {
                let message: NATSMessage?
                do {
                    message = try subscription.next(timeoutMilliseconds: 250)
                } catch {
                    onNotice("the stream consumer failed (\(error)); resuming after sequence \(lastSequence ?? 0)")
                    break
                }
                guard let message else { continue }
                if let sequence = message.streamSequence {
                    if let lastSequence, sequence <= lastSequence { continue }  // never twice
                    lastSequence = sequence
                    position = .sequence(sequence + 1)
                }
                guard case .event(let event)? = try? decoder.decode(message.data) else {
                    onNotice("skipped an unreadable message at sequence \(message.streamSequence ?? 0)")
                    continue
                }
                let outcome = parts.add(event, part: NATSPayload.part(of: message.data))
                if let dropped = outcome.dropped { onNotice(dropped) }
                guard let whole = outcome.event else { continue }
                let item = Item(
                    streamSequence: message.streamSequence ?? 0, pending: message.pending ?? 0,
                    store: Self.store(of: message.data), event: whole)
                if !deliver(item) { return }
            }
        }
    }

    /// The `store` member of a message (the first one, as booksd writes it).
    static func store(of data: [UInt8]) -> String {
        let prefix = Array("{\"store\":\"".utf8)
        guard data.starts(with: prefix), let end = data[prefix.count...].firstIndex(of: UInt8(ascii: "\"")) else {
            return ""
        }
        return String(decoding: data[prefix.count..<end], as: UTF8.self)
    }
}

private func sleepMilliseconds(_ milliseconds: Int) {
    var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
    var remaining = timespec()
    while nanosleep(&request, &remaining) != 0 { request = remaining }
}
