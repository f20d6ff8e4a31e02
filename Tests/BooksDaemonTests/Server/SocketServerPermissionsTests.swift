import BooksProtocol
import BooksTestSupport
import Glibc
import Testing

@testable import BooksDaemon

/// The socket file's permissions: never wider than `socket_mode`, not even between
/// bind and chmod.
extension SocketServerTests {
    @Test func socketFileNeverHasMorePermissionsThanConfigured() throws {
        let dir = try TemporaryDirectory()
        let oldMask = umask(0o022)  // the common umask: bind alone would create the file 0755
        defer { umask(oldMask) }
        var modeAtBind: mode_t = 0
        let fd = try UnixListener.bind(path: dir.socketPath, mode: 0o600) { path in
            var st = stat()
            if lstat(path, &st) == 0 { modeAtBind = st.st_mode & 0o7777 }
        }
        defer { Glibc.close(fd) }
        #expect(
            modeAtBind != 0 && modeAtBind & ~mode_t(0o600) == 0,
            "between bind and chmod the socket had mode \(String(modeAtBind, radix: 8))")
        var st = stat()
        #expect(lstat(dir.socketPath, &st) == 0 && st.st_mode & 0o7777 == 0o600)
        _ = unlink(dir.socketPath)
        // Bits the umask removes are restored; no temporary name is left behind.
        let server = try makeServer(dir) { $0.socketMode = 0o666 }
        defer { server.shutdown(reason: "test", timeout: .seconds(1)) }
        #expect(lstat(dir.socketPath, &st) == 0 && st.st_mode & 0o7777 == 0o666)
        let entries = try directoryEntries(dir.path)
        #expect(entries == ["books.sock"])
    }

    private func directoryEntries(_ path: String) throws -> [String] {
        guard let handle = opendir(path) else { throw SocketServerError.systemCall("opendir", errno: errno) }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}
