import BooksNATS
import BooksPlatform
import Dispatch
import Synchronization

/// Reads a store's whole bucket for the owner's reconcile without holding up its lease: on a
/// connection of its own (`NATSConnection.bulkConnection`: nats-server may not answer that
/// connection's pings for seconds while it sets up the read of a million keys) and on a thread
/// of its own, while the publisher's thread waits and calls `keepAlive` every 500 ms (it renews
/// the lease when due; an error it throws ends the wait, and the read is abandoned).
enum NATSBucketReader {
    static func values(
        of bucket: String, on connection: NATSConnection, keepAlive: () throws(NATSError) -> Void
    ) throws(NATSError) -> [String: [UInt8]] {
        let outcome = Outcome()
        let done = DispatchSemaphore(value: 0)
        let read: @Sendable () -> Void = {
            let result = Result { () throws(NATSError) -> [String: [UInt8]] in
                let bulk = try connection.bulkConnection()
                return try bulk.jetStream(timeoutMilliseconds: 60_000).keyValue(bucket).values()
            }
            outcome.result.withLock { $0 = result }
            done.signal()
        }
        let thread: DedicatedThread
        do {
            thread = try DedicatedThread.start(name: "booksd-nats-read", read)
        } catch {
            throw NATSError(context: "reading bucket \(bucket)", text: "no thread: \(error)")
        }
        while done.wait(timeout: .now() + .milliseconds(500)) == .timedOut { try keepAlive() }
        thread.join()
        guard let result = outcome.result.withLock({ $0 }) else {
            throw NATSError(context: "reading bucket \(bucket)", text: "the read ended without a result")
        }
        return try result.get()
    }
}

/// The read's result, handed from its thread to the waiting one.
private final class Outcome: Sendable {
    let result = Mutex<Result<[String: [UInt8]], NATSError>?>(nil)
}
