import BooksProtocol

extension StoreStatus {
    /// The row of the `stores` reply.
    public var info: StoreInfo {
        StoreInfo(
            name: name.rawValue, path: path, format: format.rawValue, state: state, problem: problem,
            bookCount: bookCount, badLines: badLines, epoch: epoch, seq: seq)
    }
}

extension ReconcilerStateMachine {
    /// The store as the `stores` op lists it, named `name` (a lone engine as the server's delegate).
    func storeInfo(name: String) -> StoreInfo {
        StoreInfo(
            name: name, path: configuration.path, format: configuration.format.rawValue, state: fileState.word,
            problem: fileState.problem, bookCount: context.bookCount, badLines: context.document.badLineCount,
            epoch: context.epoch, seq: context.seq)
    }
}
