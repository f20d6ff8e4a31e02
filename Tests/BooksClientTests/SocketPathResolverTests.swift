import BooksClient
import BooksTestSupport
import Glibc
import Testing

@Suite struct SocketPathResolverTests {
    func resolver(_ env: [String: String], existing: Set<String>) -> SocketPathResolver {
        SocketPathResolver(environment: { env[$0] }, fileExists: { existing.contains($0) })
    }

    @Test func explicitWins() {
        let r = resolver(
            ["BOOKS_SOCKET": "/env.sock", "XDG_RUNTIME_DIR": "/run/user/1"], existing: ["/run/user/1/booksd.sock"])
        #expect(r.resolve(explicit: "/opt.sock") == ("/opt.sock", .option))
    }

    @Test func environmentNext() {
        let r = resolver(["BOOKS_SOCKET": "/env.sock"], existing: [])
        #expect(r.resolve(explicit: nil) == ("/env.sock", .environment))
        #expect(resolver(["BOOKS_SOCKET": ""], existing: []).resolve(explicit: nil).origin == .system)
    }

    @Test func runtimeDirectoryOnlyWhenSocketExists() {
        let env = ["XDG_RUNTIME_DIR": "/run/user/1"]
        #expect(
            resolver(env, existing: ["/run/user/1/booksd.sock"]).resolve(explicit: nil) == (
                "/run/user/1/booksd.sock", .runtimeDirectory
            ))
        #expect(
            resolver(env, existing: ["./.booksd.sock"]).resolve(explicit: nil) == ("./.booksd.sock", .workingDirectory))
        #expect(resolver(env, existing: []).resolve(explicit: nil) == ("/run/booksd/booksd.sock", .system))
    }

    @Test func workingDirectoryThenSystem() {
        #expect(resolver([:], existing: ["./.booksd.sock"]).resolve(explicit: nil).path == "./.booksd.sock")
        #expect(resolver([:], existing: []).resolve(explicit: nil).path == "/run/booksd/booksd.sock")
    }
}

/// A `./.booksd.sock` another user planted is not trusted.
@Suite struct SocketTrustTests {
    @Test func anUntrustedLocalSocketIsPassedOverWithAWarning() {
        let r = SocketPathResolver(
            environment: { _ in nil }, fileExists: { $0 == "./.booksd.sock" },
            untrustedReason: { _ in "it is owned by uid 1234, not by you or root" })
        let resolved = r.resolveWithWarning(explicit: nil)
        #expect(resolved.path == "/run/booksd/booksd.sock" && resolved.origin == .system)
        #expect(resolved.warning?.contains("ignoring ./.booksd.sock: it is owned by uid 1234") == true)
        #expect(r.resolveWithWarning(explicit: "/x.sock").warning == nil)
    }

    @Test func onlyASocketOfThisUserOrRootIsTrusted() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-socket-trust")
        let socketPath = dir.file("s.sock")
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let address = try UnixSocketAddress(path: socketPath)
        #expect(address.withSockaddr { bind(fd, $0, $1) } == 0)
        #expect(SocketPathResolver.untrustedReason(of: socketPath) == nil)
        try dir.write("file", "x")
        #expect(SocketPathResolver.untrustedReason(of: dir.file("file")) == "it is not a socket")
        symlink(socketPath, dir.file("link"))
        #expect(SocketPathResolver.untrustedReason(of: dir.file("link")) == "it is a symbolic link")
        if geteuid() == 0 {
            #expect(chown(socketPath, 65534, 65534) == 0)
            #expect(
                SocketPathResolver.untrustedReason(of: socketPath) == "it is owned by uid 65534, not by you or root")
        }
    }
}
