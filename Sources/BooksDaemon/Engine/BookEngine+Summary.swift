import BooksCore

/// The engine's store status, copied out after every input so that `stores`, `STATUS=` and the
/// registry never wait for the engine's queue (a store being rewritten delays nobody).
extension BookEngine {
    /// This store's row for `stores` (a copy taken after the last input; lock-free for the queue).
    public var storeStatus: StoreStatus { summary.withLock { $0 } }

    /// Copies the machine's current state into `summary` (on the queue, after each input).
    func publishSummary() {
        let status = machine.withLock { machine in
            StoreStatus(
                name: storeName, path: store.configuration.path, format: store.configuration.format,
                state: machine.fileState.word, problem: machine.fileState.problem,
                bookCount: machine.context.bookCount, badLines: machine.context.document.badLineCount,
                epoch: machine.context.epoch, seq: machine.context.seq)
        }
        summary.withLock { $0 = status }
    }
}
