import BooksPlatform
import BooksStore
import Glibc
import Testing

@testable import BooksDaemon

@Suite struct WriterAuthorizationTests {
    /// A user database whose answers the test changes, counting the look-ups.
    final class FakeGroups: Sendable {
        let groups = Locked<[UInt32: [gid_t]]>([:])
        let lookups = Locked(0)
        func lookup(_ uid: UInt32, _ primary: gid_t) -> [gid_t] {
            lookups.withLock { $0 += 1 }
            return groups.withLock { $0[uid] ?? [primary] }
        }
    }

    let peer = PeerCredentials(pid: 42, uid: 5001, gid: 5001)

    @Test func membersOfAWriterGroupMayWriteOthersMayNot() {
        let fake = FakeGroups()
        fake.groups.withLock { $0[5001] = [5001, 700] }
        let check = WriterAuthorization(lookup: fake.lookup)
        #expect(check.mayWrite(peer, uids: [], groups: [700]))
        #expect(!check.mayWrite(peer, uids: [], groups: [701]))
        #expect(check.mayWrite(peer, uids: [5001], groups: []))
        #expect(check.mayWrite(PeerCredentials(pid: 1, uid: 0, gid: 0), uids: [], groups: []), "root may write")
    }

    @Test func aReloadLooksGroupMembershipUpAgain() {
        let fake = FakeGroups()
        let engine = BookEngine(
            configuration: DaemonConfiguration(),
            store: makeBookStore(
                path: "/nonexistent/books.txt",
                format: .text, lineLimit: 1 << 20),
            logger: Logger(backend: SilentLog()), notifier: SystemdNotifier(), epoch: "E",
            accounts: WriterAuthorization(lookup: fake.lookup))
        var configuration = DaemonConfiguration()
        configuration.writerGroups = [700]
        engine.reconfigure(configuration)
        #expect(!engine.accounts.mayWrite(peer, uids: [], groups: [700]))
        fake.groups.withLock { $0[5001] = [5001, 700] }  // the user joins the group
        #expect(!engine.accounts.mayWrite(peer, uids: [], groups: [700]), "cached until the next reload")
        engine.reconfigure(configuration)  // SIGHUP
        #expect(engine.accounts.mayWrite(peer, uids: [], groups: [700]))
        #expect(fake.lookups.withLock { $0 } == 2)
    }
}
