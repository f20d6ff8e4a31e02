import Glibc

extension DaemonConfiguration {
    /// What a start would fail on in the file system, one sentence each (for `--check-config`):
    /// a book file whose directory does not exist, a socket whose directory does not exist (unless
    /// systemd hands the socket over, `LISTEN_FDS`). A book file that does not exist yet is fine
    /// (booksd serves it once it appears), as is a watched folder that comes later.
    public func pathProblems(
        environment: [String: String], isDirectory: (String) -> Bool = DaemonConfiguration.isDirectory
    ) -> [String] {
        var problems: [String] = []
        for spec in effectiveStores {
            let directory = Self.directory(of: spec.path)
            if !isDirectory(directory) {
                problems.append(
                    "the directory of the book file \(spec.path) (store '\(spec.name)') does not exist: \(directory)")
            }
        }
        if environment["LISTEN_FDS"] == nil {
            let socket = effectiveSocketPath()
            let directory = Self.directory(of: socket)
            if !isDirectory(directory) {
                problems.append("the directory of the socket \(socket) does not exist: \(directory)")
            }
        }
        return problems + http.problems
    }

    /// The directory part of `path` (`.` for a bare name).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    /// Whether `path` is a directory (following symlinks).
    public static func isDirectory(_ path: String) -> Bool {
        var s = stat()
        return stat(path, &s) == 0 && s.st_mode & S_IFMT == S_IFDIR
    }
}
