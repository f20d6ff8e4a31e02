import BooksCore
import BooksProtocol

extension ReconcilerStateMachine {
    /// The store as the `stores` op lists it, named `name`: the one place a store's row is made
    /// from its state (the engine's status copy, a lone engine answering `stores`), with the oldest
    /// change set kept as `status` shows it. The time of that change set is taken from `previous`
    /// when it names the same one (the row is made after every input; the oldest rarely moves).
    package func storeInfo(name: String, previous: StoreInfo? = nil) -> StoreInfo {
        let oldest = context.log.count > 0 ? context.log[0] : nil
        let time =
            previous.flatMap { $0.epoch == context.epoch && $0.historyOldestSeq == oldest?.seq ? $0 : nil }?
            .historyOldestTime ?? oldest.map { ISO8601.format($0.time) }
        return StoreInfo(
            name: name, path: configuration.path, format: configuration.format.rawValue, state: fileState.word,
            problem: fileState.problem, bookCount: context.bookCount, badLines: context.document.badLineCount,
            epoch: context.epoch, seq: context.seq, historyOldestSeq: oldest?.seq, historyOldestTime: time)
    }
}
