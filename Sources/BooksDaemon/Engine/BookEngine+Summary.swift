import BooksCore
import BooksProtocol

/// The engine's store status, copied out after every input so that `stores`, `STATUS=` and the
/// registry never wait for the engine's queue (a store being rewritten delays nobody).
extension BookEngine {
    /// This store's row for `stores` and `STATUS=` (a copy taken after the last input; never
    /// waits for the queue).
    public var storeStatus: StoreInfo { summary.withLock { $0 } }

    /// Copies the machine's current state into `summary` (on the queue, after each input).
    func publishSummary() {
        let previous = summary.withLock { $0 }
        let status = machine.withLock { $0.storeInfo(name: storeName.rawValue, previous: previous) }
        summary.withLock { $0 = status }
    }
}
