import Glibc

/// Where the package's built executables are: `BOOKSYNC_BIN_DIR` when set, else the directory
/// holding the running test bundle or executable (it sits next to `booksd`), else
/// `<package>/.build/<configuration>` (`debug` unless only `release` was built).
public enum BuildProducts {
    /// The directory holding `booksd` and `booksctl`.
    public static let binDirectory: String = locate()

    /// The built `booksd`.
    public static var booksd: String { binDirectory + "/booksd" }

    /// The built `booksctl`.
    public static var booksctl: String { binDirectory + "/booksctl" }

    /// The package root (the directory with Package.swift), from this file's location.
    public static let packageRoot: String = {
        String(
            #filePath.split(separator: "/Tests/BooksTestSupport/", maxSplits: 1, omittingEmptySubsequences: false)[0])
    }()

    /// `<package>/.build/<configuration>` (e.g. `debug`, `release`).
    public static func binDirectory(configuration: String) -> String {
        packageRoot + "/.build/" + configuration
    }

    /// The absolute path of the running executable (`/proc/self/exe`).
    public static func currentExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink("/proc/self/exe", &buffer, Int(PATH_MAX))
        guard n > 0 else { return CommandLine.arguments.first ?? "" }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func locate() -> String {
        if let env = getenv("BOOKSYNC_BIN_DIR") { return String(cString: env) }
        // …/.build/x86_64-unknown-linux-gnu/debug/BookSyncPackageTests.xctest or …/debug/BooksBenchmarks
        var dir = currentExecutable()
        while let slash = dir.lastIndex(of: "/"), slash != dir.startIndex {
            dir = String(dir[..<slash])
            if access(dir + "/booksd", X_OK) == 0 { return dir }
            if dir.hasSuffix("/.build") { break }
        }
        for configuration in ["debug", "release"]
        where access(binDirectory(configuration: configuration) + "/booksd", X_OK) == 0 {
            return binDirectory(configuration: configuration)
        }
        return binDirectory(configuration: "debug")
    }
}
