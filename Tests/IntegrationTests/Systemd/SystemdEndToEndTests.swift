import BooksTestSupport
import Glibc
import Testing

/// Runs scripts/systemd-e2e.sh: booksd.socket + booksd.service installed by scripts/install.sh and
/// driven by a real systemd as PID 1 of private namespaces; and scripts/user-service-e2e.sh: the
/// per-user units under a real `systemd --user`. Needs root; otherwise, or when the
/// machine forbids namespaces, the script exits 77 and this test prints why it was skipped.
/// Set BOOKSD_E2E=0 to skip it on purpose.
@Suite("booksd under a real systemd manager", .serialized)
struct SystemdEndToEndTests {
    @Test("scripts/systemd-e2e.sh: install, activation, hand edit, reload, kill -9 + restart, stop, NATS drop-in")
    func endToEnd() throws {
        try run("systemd-e2e.sh", timeout: 210)
    }

    @Test("scripts/user-service-e2e.sh: the per-user units under systemd --user, XDG config and book file")
    func userService() throws {
        try run("user-service-e2e.sh", timeout: 100)
    }

    /// Runs `scripts/NAME BINDIR`; exit 77 is a skip (printed), anything but 0 a failure.
    private func run(_ name: String, timeout: Double) throws {
        if let flag = getenv("BOOKSD_E2E"), String(cString: flag) == "0" {
            print("SKIP \(name): BOOKSD_E2E=0")
            return
        }
        let script = BuildProducts.packageRoot + "/scripts/" + name
        let scratch = try TemporaryDirectory(prefix: "bsd", base: "/tmp")
        defer { scratch.remove() }
        let output = scratch.path + "/e2e.log"
        let run = try SystemdTools.spawn(["/bin/bash", script, BuildProducts.binDirectory], output: output)
        let finished = run.waitBlocking(timeout: timeout) != nil
        if !finished {
            run.signal(SIGTERM)
            run.waitBlocking(timeout: 10)
        }
        let log = SystemdTools.read(output)
        print(log)
        #expect(finished, "\(name) did not finish within \(timeout) s")
        if run.exitCode == 77 {
            let reason = log.split(separator: "\n").first { $0.hasPrefix("SKIP:") } ?? "SKIP: (no reason printed)"
            print("SKIPPED \(name) — \(reason)")
            return
        }
        #expect(run.exitCode == 0, "\(name) failed:\n\(log)")
        #expect(log.contains("PASS:") && !log.contains("FAIL:"))
    }
}
