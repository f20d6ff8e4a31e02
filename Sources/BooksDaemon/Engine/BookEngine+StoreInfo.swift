import BooksProtocol
import Dispatch

extension BookEngine {
    /// This engine's store as the `stores` op lists it, named `name`. Call on the engine's queue.
    func storeInfo(name: String) -> StoreInfo {
        dispatchPrecondition(condition: .onQueue(queue))
        return machine.withLock { $0.storeInfo(name: name) }
    }
}

extension ReconcilerStateMachine {
    /// The store as the `stores` op lists it, named `name`.
    func storeInfo(name: String) -> StoreInfo {
        StoreInfo(
            name: name, path: configuration.path, format: configuration.format.rawValue, state: fileState.word,
            problem: fileState.problem, bookCount: context.bookCount, badLines: context.document.badLines.count,
            epoch: context.epoch, seq: context.seq)
    }
}
