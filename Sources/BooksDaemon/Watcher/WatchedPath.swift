import Glibc

/// A watched file path split into its absolute containing directory and its exact file name.
struct WatchedPath: Sendable, Hashable {
    /// The file's absolute path as given (made absolute against the working directory).
    let path: String
    /// The absolute directory that contains the file, without a trailing slash (except `/`).
    let directory: String
    /// The exact file name inside `directory` that events are filtered on.
    let name: String

    init(_ rawPath: String) throws(FileWatcherError) {
        guard !rawPath.isEmpty, !rawPath.hasSuffix("/") else { throw .invalidPath(rawPath) }
        var absolute = rawPath
        if !rawPath.hasPrefix("/") {
            guard let cwd = getcwd(nil, 0) else { throw .systemCallFailed(call: "getcwd", errno: errno) }
            defer { free(cwd) }
            let base = String(cString: cwd)
            absolute = base.hasSuffix("/") ? base + rawPath : base + "/" + rawPath
        }
        let slash = absolute.lastIndex(of: "/")!  // absolute paths always contain one
        let name = String(absolute[absolute.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else { throw .invalidPath(rawPath) }
        let directory = slash == absolute.startIndex ? "/" : String(absolute[..<slash])
        self.path = absolute
        self.directory = directory
        self.name = name
    }
}
