import CLinux
import Glibc

/// Where the saved history beside a book file lives when another user holds its usual name.
///
/// The usual directory is `.books.txt.history` beside the book file. In a shared folder (mode
/// 1777, like /tmp) another user can create that name first; booksd cannot remove it and must
/// not use it (`StateDirectory` refuses a directory it does not own). Then the history lives in
/// a private directory with a random name beside it, `.books.txt.history-XXXXXX` (`mkdtemp`,
/// mode 0700: nobody can pre-create it), found again at the next start: the first (by name) such
/// directory that is booksd's own and not writable by group or others.
public enum StateDirectoryLocation {
    /// The directory to use for the usual path `usual`, and a line for the log when it is not
    /// the usual one (nil otherwise). The usual path is used when it is missing or booksd's own;
    /// else an existing private directory, else a new one (the usual path when that fails too,
    /// so the caller reports why it cannot be used).
    public static func resolve(_ usual: String) -> (path: String, note: String?) {
        var s = stat()
        guard lstat(usual, &s) == 0, s.st_uid != geteuid() || s.st_mode & S_IFMT != S_IFDIR else {
            return (usual, nil)
        }
        let why =
            "\(usual) is not booksd's (a \(FileReader.kindName(s.st_mode)) owned by uid \(s.st_uid)); it is left alone"
        if let existing = privateDirectories(beside: usual).first {
            return (existing, "\(why) and the saved history is kept in \(existing)")
        }
        var template = Array((usual + "-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            return (usual, nil)
        }
        let created = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return (created, "\(why); the saved history is kept in a new private directory \(created)")
    }

    /// The private directories `usual-XXXXXX` beside `usual` that are booksd's own (a directory,
    /// not a symlink, of its user, not writable by group or others), sorted by name.
    static func privateDirectories(beside usual: String) -> [String] {
        let parts = PathParts(usual)
        let prefix = parts.base + "-"
        guard let dir = opendir(parts.directory) else { return [] }
        defer { closedir(dir) }
        var found: [String] = []
        while let entry = readdir(dir) {
            let name = String(cString: books_dirent_name(entry))
            guard name.hasPrefix(prefix), name.utf8.count == prefix.utf8.count + 6 else { continue }
            var s = stat()
            let path = parts.directory + "/" + name
            if lstat(path, &s) == 0, s.st_mode & S_IFMT == S_IFDIR, s.st_uid == geteuid(), s.st_mode & 0o022 == 0 {
                found.append(path)
            }
        }
        return found.sorted()
    }
}
