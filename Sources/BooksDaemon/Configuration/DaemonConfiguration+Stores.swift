/// The stores a configuration names.
extension DaemonConfiguration {
    /// The stores to serve at start, besides the watched folder's: the `store` lines and
    /// `--store` flags, plus `file` as the store `default` when it was given, or when nothing
    /// else (no store, no folder, no replica folder) is configured — so a single `--file` works as before.
    public var effectiveStores: [StoreSpec] {
        var result = stores
        let fileIsDefault = fileIsExplicit || (stores.isEmpty && storeFolder == nil && replicaFolder == nil)
        if fileIsDefault, !result.contains(where: { $0.name == .default }) {
            result.insert(StoreSpec(name: .default, path: filePath, format: format), at: 0)
        }
        return result
    }

    /// The explicit state directory stores share (each in a subfolder named after it):
    /// `state_directory`, else `$STATE_DIRECTORY`; nil when none is set (or `none`).
    public func sharedStateDirectory(environment: [String: String] = ProcessEnvironment.current()) -> String? {
        if let stateDirectory { return stateDirectory == "none" ? nil : stateDirectory }
        if let systemd = environment["STATE_DIRECTORY"], !systemd.isEmpty {
            return String(systemd.split(separator: ":").first ?? Substring(systemd))
        }
        return nil
    }

    /// Where the store `spec` keeps its saved history: `<state directory>/<store name>` when a
    /// state directory is set, else `.<file name>.history` beside the store's file; nil with
    /// `state_directory = none`.
    public func stateDirectory(
        for spec: StoreSpec, environment: [String: String] = ProcessEnvironment.current()
    ) -> String? {
        if stateDirectory == "none" { return nil }
        if let shared = sharedStateDirectory(environment: environment) {
            return (shared.hasSuffix("/") ? shared : shared + "/") + spec.name.rawValue
        }
        var single = self
        single.filePath = spec.path
        single.stateDirectory = nil
        return single.effectiveStateDirectory(environment: [:])
    }
}
