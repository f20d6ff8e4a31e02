import Glibc

/// A fresh directory made with `mkdtemp` (`<base>/<prefix>-XXXXXX`), removed with everything in
/// it when the object goes away (or by `remove()`).
///
/// Set `BOOKSYNC_KEEP_TEST_DIRS=1` (or the older `BOOKS_FAULT_KEEP`) to keep the directories for a
/// post-mortem. `/var/tmp` is the default base: short enough for socket paths, and editors treat
/// `/tmp` specially.
public final class TemporaryDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String
    private let removesItself: Bool

    /// Whether the environment asks to keep test directories.
    public static let keepRequested: Bool =
        getenv("BOOKSYNC_KEEP_TEST_DIRS") != nil || getenv("BOOKS_FAULT_KEEP") != nil

    /// Creates `<base>/<prefix>-XXXXXX` with `mode`.
    /// - Parameter removeOnDeinit: remove the tree when this object is released (default true).
    public init(
        prefix: String = "booksync-test", base: String = "/var/tmp", mode: mode_t = 0o755,
        removeOnDeinit: Bool = true
    ) throws {
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        guard made != nil else { throw TestSupportError("mkdtemp under \(base): \(TestFiles.errorText())") }
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        chmod(path, mode)
        removesItself = removeOnDeinit
    }

    deinit {
        if removesItself && !Self.keepRequested { TestFiles.removeTree(path) }
    }

    /// The path of `name` inside the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Writes `bytes` to `name` in place; returns its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        try TestFiles.write(bytes, to: file(name))
        return file(name)
    }

    /// Writes `text` to `name` in place; returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    /// The bytes of `name`, or nil when it does not exist.
    public func read(_ name: String) -> [UInt8]? { TestFiles.readBytes(file(name)) }

    /// The text of `name`, or nil when it does not exist.
    public func readText(_ name: String) -> String? { TestFiles.readText(file(name)) }

    /// Makes the subdirectory `name` (fine when it exists); returns its path.
    @discardableResult
    public func makeDirectory(_ name: String, mode: mode_t = 0o755) -> String {
        mkdir(file(name), mode)
        return file(name)
    }

    /// The names in the directory, sorted.
    public func names() -> [String] { TestFiles.names(in: path) }

    /// Removes the directory and everything in it now (also honoured when keeping is requested).
    public func remove() { TestFiles.removeTree(path) }
}
