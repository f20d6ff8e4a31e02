import BooksCore
import BooksProtocol

/// One item of a change feed over several stores (`BooksClient.changes(stores:…)`), each naming
/// its store. Sequence numbers and epochs are per store: resume each store from its own point.
public enum StoreFeedItem: Sendable, Hashable {
    /// A feed item of `store` (its `subscribed` position, snapshot, change, heartbeat, …).
    case item(store: String, FeedItem)
    /// `store` appeared; a feed of every store (`["*"]`) follows it from now on (its `.subscribed`
    /// and snapshot come as `.item`s).
    case storeAdded(store: String, ResumePoint)
    /// `store` went away (`reason`); no more items come for it.
    case storeRemoved(store: String, reason: String)
    /// `store` could not be followed (`reason`: the daemon's error code and message); the other
    /// stores' feeds go on.
    case subscribeFailed(store: String, reason: String)

    /// The store the item is about.
    public var store: String {
        switch self {
        case .item(let store, _), .storeAdded(let store, _), .storeRemoved(let store, _),
            .subscribeFailed(let store, _):
            return store
        }
    }

    /// Converts a wire event of a version-2 daemon (an event without `store` is `unnamed`'s).
    public init(_ event: Event, unnamed: String = "") {
        let store = event.store ?? unnamed
        switch event.event {
        case .storeAdded: self = .storeAdded(store: store, ResumePoint(epoch: event.epoch, seq: event.seq))
        case .storeRemoved: self = .storeRemoved(store: store, reason: event.reason ?? "")
        case .subscribeFailed: self = .subscribeFailed(store: store, reason: event.reason ?? "")
        case .snapshot, .change, .resyncRequired, .heartbeat, .shutdown, .subscribed, .conflict:
            self = .item(store: store, FeedItem(event))
        }
    }
}
