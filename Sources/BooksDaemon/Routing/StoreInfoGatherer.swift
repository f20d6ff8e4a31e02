import BooksProtocol
import Synchronization

/// Collects one `StoreInfo` per store from the engines' queues and calls `completion` once, with
/// all of them in index order, when the last one arrived.
final class StoreInfoGatherer: Sendable {
    private let state: Mutex<(infos: [StoreInfo?], missing: Int)>
    private let completion: @Sendable ([StoreInfo]) -> Void

    init(count: Int, completion: @escaping @Sendable ([StoreInfo]) -> Void) {
        state = Mutex((Array(repeating: nil, count: count), count))
        self.completion = completion
    }

    func add(_ info: StoreInfo, at index: Int) {
        let done = state.withLock { s -> [StoreInfo]? in
            s.infos[index] = info
            s.missing -= 1
            return s.missing == 0 ? s.infos.compactMap { $0 } : nil
        }
        if let done { completion(done) }
    }
}
