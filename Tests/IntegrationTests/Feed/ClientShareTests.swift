import BooksTestSupport
import Foundation
import Glibc
import Testing

/// A python3 client: opens `argv[2]` connections to `argv[1]`, says hello on each, prints one
/// line per connection (`ok` or the refusal), then holds them all until its stdin closes.
private let holderClient = #"""
    import json, socket, sys
    held = []
    for i in range(int(sys.argv[2])):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        f = s.makefile("rwb")
        try:
            f.write(json.dumps({"id": "h", "op": "hello", "version": 2}).encode() + b"\n"); f.flush()
        except OSError:
            pass  # refused at accept: the refusal is still there to read
        line = f.readline().decode()
        sys.stdout.write(("ok" if '"ok":true' in line.replace(" ", "") else "refused " + line.strip()) + "\n")
        sys.stdout.flush()
        held.append((s, f))
    sys.stdin.read()
    """#

extension FeedTests {
    /// One uid that is not exempt holds at most half of `max_clients`, also when
    /// `max_clients_per_uid` is larger: another user always gets in.
    @Test("one uid cannot take every slot when max_clients <= max_clients_per_uid; another uid gets in")
    func oneUIDCannotTakeEverySlot() async throws {
        guard geteuid() == 0, getpwnam("nobody") != nil,
            FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")
        else {
            print("skipped oneUIDCannotTakeEverySlot: needs root, user nobody, /usr/bin/setpriv and /usr/bin/python3")
            return
        }
        let daemon = try await FeedDaemon(
            rows: ["b1|Emma|Jane Austen"], settings: ["socket_mode=0666", "max_clients=8", "max_clients_per_uid=64"],
            dirMode: 0o755)
        defer { daemon.stop() }
        let script = daemon.directory + "/holder.py"
        try holderClient.write(toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o644)
        let out = daemon.directory + "/holder.out"
        let holder = try ChildProcess.spawn(
            [
                "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "/usr/bin/python3", script,
                daemon.socket, "8",
            ], stdin: .pipe, stdout: .appendFile(out), stderr: .appendFile(out))
        defer {
            holder.closeStdin()
            _ = holder.terminate(grace: 2)
        }
        let lines = { (TestFiles.readText(out) ?? "").split(separator: "\n").map(String.init) }
        #expect(await eventually(timeout: 15, interval: 0.05) { lines().count >= 8 }, "\(lines())")
        let held = lines().filter { $0 == "ok" }.count
        #expect(held == 4, "nobody holds \(held) of max_clients 8: \(lines())")
        #expect(
            lines().contains { $0.contains("max_clients_per_uid 64, at most half of max_clients 8") },
            "\(lines())")
        // Root (another uid) still gets in while nobody holds its share.
        let list = try await ChildProcess.run([BuildProducts.booksctl, "--socket", daemon.socket, "list", "--json"])
        #expect(list.status == 0 && list.output.contains("Emma"), "\(list)")
    }
}
