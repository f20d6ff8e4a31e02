import BooksClient
import BooksCore
import BooksProtocol
import Testing

@testable import booksctl

#if canImport(Glibc)
import Glibc
#endif

@Suite struct ExitCodeTests {
    @Test func mapping() {
        #expect(ErrorReporter.exitCode(for: .cannotConnect(path: "/x", errno: ENOENT)) == .cannotConnect)
        #expect(ErrorReporter.exitCode(for: .cannotConnect(path: "/x", errno: ECONNREFUSED)) == .cannotConnect)
        #expect(ErrorReporter.exitCode(for: .cannotConnect(path: "/x", errno: EACCES)) == .permissionDenied)
        #expect(ErrorReporter.exitCode(for: .daemon(ProtocolError(.permissionDenied, "no"))) == .permissionDenied)
        #expect(ErrorReporter.exitCode(for: .daemon(ProtocolError(.notFound, "no"))) == .notFound)
        #expect(ErrorReporter.exitCode(for: .daemon(ProtocolError(.conflict, "no"))) == .conflict)
        #expect(ErrorReporter.exitCode(for: .daemon(ProtocolError(.storeUnavailable, "no"))) == .daemonError)
        #expect(ErrorReporter.exitCode(for: .connectionClosed) == .daemonError)
        #expect(ExitCode.allCases.map(\.rawValue) == [0, 1, 2, 3, 4, 5, 6])
    }

    @Test func conflictPrintsCurrentValues() {
        let error = BooksClientError.daemon(
            ProtocolError(
                .conflict, "version 3 expected, book is at 5",
                current: Book(id: "a", name: "Dune", author: "Herbert"),
                currentVersion: 5))
        let text = ErrorReporter.message(for: error)
        #expect(text.contains("current values (version 5)"))
        #expect(text.contains("name:   Dune") && text.contains("author: Herbert"))
        #expect(ErrorReporter.message(for: .daemon(ProtocolError(.conflict, "gone"))).contains("no longer exists"))
    }

    @Test func cannotConnectMessageHasHint() {
        let text = ErrorReporter.message(for: .cannotConnect(path: "/run/booksd/booksd.sock", errno: ENOENT))
        #expect(text.contains("/run/booksd/booksd.sock") && text.contains("systemctl start booksd.socket"))
    }
}
