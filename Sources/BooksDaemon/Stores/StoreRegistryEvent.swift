import BooksProtocol

/// A store was added to or removed from a ``StoreRegistry`` (the server turns these into
/// `store-added` / `store-removed` events).
public enum StoreRegistryEvent: Sendable, Hashable {
    /// The store is loaded, watched and answers requests.
    case added(StoreInfo)
    /// The store is gone: its engine stopped watching and answers nothing more; `reason` says why
    /// (removed from the folder, from the configuration, …).
    case removed(StoreName, reason: String)
}
