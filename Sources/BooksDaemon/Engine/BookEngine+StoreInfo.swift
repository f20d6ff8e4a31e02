import BooksProtocol

extension ReconcilerStateMachine {
    /// The store as the `stores` op lists it, named `name`: the one place a store's row is made
    /// from its state (the engine's status copy, a lone engine answering `stores`).
    func storeInfo(name: String) -> StoreInfo {
        StoreInfo(
            name: name, path: configuration.path, format: configuration.format.rawValue, state: fileState.word,
            problem: fileState.problem, bookCount: context.bookCount, badLines: context.document.badLineCount,
            epoch: context.epoch, seq: context.seq)
    }
}
