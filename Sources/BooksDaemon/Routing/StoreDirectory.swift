import BooksProtocol

/// What the socket server's router needs from the daemon's stores (`StoreRegistry` conforms):
/// the engine of a name, and every name. Thread-safe and cheap: the server thread calls it for
/// every request.
public protocol StoreDirectory: AnyObject, Sendable {
    /// The engine serving the store `name`, or nil when there is no such store.
    func engine(named name: String) -> BookEngine?
    /// Every store's name, sorted.
    var storeNames: [String] { get }
}
