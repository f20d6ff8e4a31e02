/// The registry as the router's directory of stores.
extension StoreRegistry: StoreDirectory {
    /// The engine of the store named `name` (nil for a name that is not a valid store name).
    public func engine(named name: String) -> BookEngine? {
        guard let name = try? StoreName(name) else { return nil }
        return engine(named: name)
    }

    /// The serving stores' names, sorted.
    public var storeNames: [String] { names.map(\.rawValue) }
}
