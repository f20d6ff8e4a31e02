import BooksPlatform

/// The router, set once after the registry it routes to was made (the registry's channel factory
/// needs the router, the router needs the registry).
final class LateRouter: Sendable {
    private let box = Locked<StoreRouter?>(nil)

    /// The router once set.
    var router: StoreRouter? {
        get { box.withLock { $0 } }
        set { box.withLock { $0 = newValue } }
    }
}
