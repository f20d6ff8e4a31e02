/// Where `booksd --user` (a per-user daemon, e.g. the `systemctl --user` service) looks for its
/// files, following the XDG base directory specification. Pure: computed from the environment.
public struct UserServicePaths: Sendable, Equatable {
    /// `$XDG_CONFIG_HOME/booksd/booksd.conf`, else `$HOME/.config/booksd/booksd.conf`: read when it
    /// exists and `--config` is not given.
    public var configFile: String
    /// `$XDG_DATA_HOME/booksd/books.txt`, else `$HOME/.local/share/booksd/books.txt`: the book file
    /// unless the configuration or `--file` names another.
    public var bookFile: String

    /// The paths for `environment`; nil when neither the XDG variable nor `HOME` is set.
    public init?(environment: [String: String]) {
        func base(_ variable: String, _ fallback: String) -> String? {
            if let value = environment[variable], value.hasPrefix("/") { return value }
            guard let home = environment["HOME"], !home.isEmpty else { return nil }
            return (home.hasSuffix("/") ? String(home.dropLast()) : home) + "/" + fallback
        }
        guard let config = base("XDG_CONFIG_HOME", ".config"), let data = base("XDG_DATA_HOME", ".local/share")
        else { return nil }
        configFile = config + "/booksd/booksd.conf"
        bookFile = data + "/booksd/books.txt"
    }

    /// The directory holding `bookFile` (created 0700 by `booksd --user` when missing).
    public var bookDirectory: String { String(bookFile[..<(bookFile.lastIndex(of: "/") ?? bookFile.endIndex)]) }
}
