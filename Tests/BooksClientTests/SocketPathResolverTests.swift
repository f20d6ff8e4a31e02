import BooksClient
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
