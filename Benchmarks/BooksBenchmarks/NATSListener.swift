import BooksNATS
import BooksPlatform
import Glibc

/// `BooksBenchmarks nats-listen …`: the load-generating process of the NATS benchmark (a child).
///
/// - `fanout URL SUBJECT N`: N core-NATS subscriptions to SUBJECT, spread over one connection per
///   2,500 subscriptions, delivered by the library's shared pool of 2 threads (not a thread per
///   subscription). Prints `ready` once the server has them all, then for each message, once
///   all N subscriptions have it: `all <Nats-Msg-Id> <first ns> <last ns>` (CLOCK_MONOTONIC at the
///   handler calls of the first and the last subscription).
/// - `count URL SUBJECT [all]`: one JetStream ordered consumer from the stream's next message (with
///   `all`: its first; what a remote subscriber uses). Prints `ready`, then
///   `n <messages> <books> <ns of the first one with books> <ns of the last one>` at
///   most every 20 ms while messages come, and once more when they pause (books: the `"id"`
///   members of the change sets, one per changed book; booksd may put several concurrent client
///   inserts into one change set).
enum NATSListener {
    static func run(_ arguments: [String]) -> Never {
        switch arguments.first {
        case "fanout" where arguments.count == 4:
            guard let count = Int(arguments[3]), count > 0 else { usage() }
            fanOut(url: arguments[1], subject: arguments[2], subscriptions: count)
        case "count" where arguments.count == 3 || (arguments.count == 4 && arguments[3] == "all"):
            count(url: arguments[1], subject: arguments[2], from: arguments.count == 4 ? .all : .new)
        default: usage()
        }
    }

    private static func usage() -> Never {
        Console.error("usage: BooksBenchmarks nats-listen fanout URL SUBJECT N | count URL SUBJECT [all]")
        exit(2)
    }

    private static func fanOut(url: String, subject: String, subscriptions: Int) -> Never {
        let tally = Tally(expected: subscriptions)
        var connections: [NATSConnection] = []
        var held: [NATSSubscription] = []
        do throws(NATSError) {
            try NATSConnection.setSharedDeliveryThreads(2)
            for index in 0..<(subscriptions + 2499) / 2500 {
                var options = NATSConnectOptions(urls: [url], name: "bench-fanout-\(index)")
                options.globalMessageDelivery = true
                connections.append(try NATSConnection.connect(options))
            }
            for k in 0..<subscriptions {
                held.append(
                    try connections[k % connections.count].subscribe(subject) { message in
                        tally.record(message.messageID ?? "?")
                    })
            }
            for connection in connections { try connection.flush(timeoutMilliseconds: 60_000) }
        } catch {
            Console.error("nats-listen: \(error)")
            exit(1)
        }
        Console.out("ready")
        while true { sleep(3600) }
    }

    private static func count(url: String, subject: String, from start: NATSDeliveryStart) -> Never {
        let subscription: NATSOrderedSubscription
        do throws(NATSError) {
            let connection = try NATSConnection.connect(NATSConnectOptions(urls: [url], name: "bench-count"))
            subscription = try connection.jetStream().orderedSubscription(subject, from: start)
        } catch {
            Console.error("nats-listen: \(error)")
            exit(1)
        }
        Console.out("ready")
        var received = 0
        var books = 0
        var (first, last): (UInt64, UInt64) = (0, 0)
        var printed = (count: 0, at: UInt64(0))
        while true {
            let message = try? subscription.next(timeoutMilliseconds: 10)
            let now = Stopwatch.now()
            if let message {
                received += 1
                let ids = idCount(message.data)
                books += ids
                if first == 0 && ids > 0 { first = now }
                last = now
            }
            if received != printed.count && (message == nil || now - printed.at >= 20_000_000) {
                Console.out("n \(received) \(books) \(first) \(last)")
                printed = (received, now)
            }
        }
    }
}

/// How many times `"id":` occurs in `data`.
private func idCount(_ data: [UInt8]) -> Int {
    let needle = Array("\"id\":".utf8)
    guard data.count >= needle.count else { return 0 }
    var count = 0
    for start in 0...(data.count - needle.count) where data[start] == needle[0] {
        if data[start..<(start + needle.count)].elementsEqual(needle) { count += 1 }
    }
    return count
}

/// Counts, per message id, how many subscriptions have the message (handlers run on the
/// library's delivery threads).
private final class Tally: Sendable {
    private struct Entry {
        var count: Int
        var first: UInt64
    }
    private let expected: Int
    private let entries = Locked<[String: Entry]>([:])

    init(expected: Int) { self.expected = expected }

    func record(_ id: String) {
        let now = Stopwatch.now()
        let done: UInt64? = entries.withLock { entries in
            var entry = entries[id] ?? Entry(count: 0, first: now)
            entry.count += 1
            guard entry.count == expected else {
                entries[id] = entry
                return nil
            }
            entries[id] = nil
            return entry.first
        }
        if let first = done { Console.out("all \(id) \(first) \(now)") }
    }
}
