import BooksTestSupport
import Foundation
import Glibc
import Testing

/// Non-loopback addresses need TLS and a token; with them, HTTPS and the bearer token work.
@Suite("HTTP security", .serialized) struct HTTPSecurityTests {
    @Test("booksd refuses to start on a non-loopback address without TLS and a token, with a clear error")
    func refusesNonLoopback() async throws {
        let scratch = try TemporaryDirectory(prefix: "http-refuse")
        defer { scratch.remove() }
        try TestFiles.write("b1|Emma|Jane Austen\n", to: scratch.bookFile)
        let run = try await ChildProcess.run(
            [
                BuildProducts.booksd, "--file", scratch.bookFile, "--socket", scratch.socket, "--state-directory",
                "none",
                "--set", "http_listen=0.0.0.0:\(NATSServerProcess.freePort())",
            ], stderr: .sameAsStdout, timeout: 30)
        #expect(run.status == 1)
        #expect(run.output.contains("is not a loopback address: it needs TLS (http_tls_cert, http_tls_key)"))
        let check = try await ChildProcess.run(
            [
                BuildProducts.booksd, "--file", scratch.bookFile, "--socket", scratch.socket, "--check-config",
                "--set", "http_listen=0.0.0.0:80",
            ], stderr: .sameAsStdout, timeout: 30)
        #expect(check.status == 2)
    }

    @Test("with http_tls_cert/key and http_token_file: HTTPS only, and every request needs the token")
    func tlsAndToken() async throws {
        let scratch = try TemporaryDirectory(prefix: "http-tls")
        defer { scratch.remove() }
        let key = scratch.file("key.pem")
        let certificate = scratch.file("cert.pem")
        let made = try await ChildProcess.run(
            [
                "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate,
                "-days", "2", "-subj", "/CN=localhost",
            ], stderr: .devNull, timeout: 60)
        try #require(made.status == 0)
        let token = scratch.file("token")
        try TestFiles.write("s3cret-token\n", to: token)
        let daemon = try await HTTPDaemon(
            rows: ["b1|Emma|Jane Austen"],
            settings: ["http_tls_cert=\(certificate)", "http_tls_key=\(key)", "http_token_file=\(token)"])
        defer { daemon.stop() }
        let base = "https://127.0.0.1:\(daemon.port)/v1/stores/default/books/b1"
        func status(_ arguments: [String]) async throws -> String {
            try await ChildProcess.run(
                ["curl", "-sk", "-o", "/dev/null", "-w", "%{http_code}"] + arguments, stderr: .devNull, timeout: 30
            ).output
        }
        #expect(try await status([base]) == "401")
        #expect(try await status(["-H", "Authorization: Bearer wrong", base]) == "401")
        #expect(try await status(["-H", "Authorization: Bearer s3cret-token", base]) == "200")
        #expect(try await status(["http://127.0.0.1:\(daemon.port)/v1/stores"]) != "200")  // no plain HTTP
    }

    @Test("http_listen with 127.0.0.1, [::1] and unix:/path: each serves; the Unix socket file goes at stop")
    func severalAddresses() async throws {
        let scratch = try TemporaryDirectory(prefix: "http-unix")
        defer { scratch.remove() }
        let path = scratch.file("http.sock")
        let v6 = NATSServerProcess.freePort()
        let daemon = try await HTTPDaemon(rows: ["b1|Emma|Jane Austen"], alsoListen: ["[::1]:\(v6)", "unix:\(path)"])
        defer { daemon.stop() }
        func curl(_ arguments: [String]) async throws -> String {
            try await ChildProcess.run(
                ["curl", "-s", "-w", "\n%{http_code}"] + arguments, stderr: .devNull, timeout: 30
            ).output
        }
        let overUnix = try await curl(["--unix-socket", path, "http://localhost/v1/stores/default/books/b1"])
        #expect(overUnix.hasSuffix("\n200") && overUnix.contains("Emma"))
        let written = try await curl([
            "--unix-socket", path, "-XPOST", "http://localhost/v1/stores/default/books", "-d",
            #"{"name":"Over Unix","author":"x"}"#,
        ])
        #expect(written.hasSuffix("\n201"))
        #expect(try daemon.feed.readFile().contains("|Over Unix|x"))
        #expect(
            try await curl(["--unix-socket", path, "-H", "Host: evil.example", "http://x/v1/stores"]).hasSuffix("421"))
        let overV6 = try await curl(["-g", "http://[::1]:\(v6)/v1/stores/default/books/b1"])
        #expect(overV6.hasSuffix("\n200") && overV6.contains("Emma"))
        #expect(try daemon.request("GET", "/v1/stores").status == 200)
        var info = stat()
        #expect(stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFSOCK)
        daemon.stop()
        #expect(access(path, F_OK) != 0)
    }

    @Test("http_token_file with read and write tokens: a read token reads, and gets 403 on every write")
    func readAndWriteTokens() async throws {
        let scratch = try TemporaryDirectory(prefix: "http-tokens")
        defer { scratch.remove() }
        let tokens = scratch.file("tokens")
        try TestFiles.write("# token role label\nw-token write alice\nr-token read dashboard\n", to: tokens)
        let daemon = try await HTTPDaemon(rows: ["b1|Emma|Jane Austen"], settings: ["http_token_file=\(tokens)"])
        defer { daemon.stop() }
        let reader = ["Authorization": "Bearer r-token"]
        let writer = ["Authorization": "Bearer w-token"]
        #expect(try daemon.request("GET", "/v1/stores/default/books").status == 401)
        #expect(try daemon.request("GET", "/v1/stores/default/books", headers: reader).status == 200)
        #expect(try daemon.request("GET", "/v1/stores/default/books/b1", headers: reader).status == 200)
        let refused = try daemon.request(
            "POST", "/v1/stores/default/books", headers: reader, body: #"{"name":"Read only","author":"x"}"#)
        #expect(refused.status == 403)
        #expect((daemon.json(refused)["error"] as? [String: Any])?["code"] as? String == "read-only-token")
        #expect(
            try daemon.request("PUT", "/v1/stores/default/books/b1", headers: reader, body: #"{"name":"x"}"#).status
                == 403)
        #expect(try daemon.request("DELETE", "/v1/stores/default/books/b1", headers: reader).status == 403)
        #expect(try daemon.request("POST", "/v1/stores/default/save", headers: reader, body: "{}").status == 403)
        #expect(try !daemon.feed.readFile().contains("Read only"))
        #expect(try daemon.feed.readFile().contains("b1|Emma"))
        let written = try daemon.request(
            "POST", "/v1/stores/default/books", headers: writer, body: #"{"name":"Written","author":"x"}"#)
        #expect(written.status == 201)
        #expect(try daemon.feed.readFile().contains("|Written|x"))
    }

    @Test("a token file with an unknown role stops booksd at start with the line named")
    func badTokenFile() async throws {
        let scratch = try TemporaryDirectory(prefix: "http-badtokens")
        defer { scratch.remove() }
        try TestFiles.write("b1|Emma|Jane Austen\n", to: scratch.bookFile)
        let tokens = scratch.file("tokens")
        try TestFiles.write("t1 read\nt2 admin\n", to: tokens)
        let run = try await ChildProcess.run(
            [
                BuildProducts.booksd, "--file", scratch.bookFile, "--socket", scratch.socket, "--state-directory",
                "none", "--set", "http_listen=127.0.0.1:\(NATSServerProcess.freePort())", "--set",
                "http_token_file=\(tokens)",
            ], stderr: .sameAsStdout, timeout: 30)
        #expect(run.status != 0)
        #expect(run.output.contains("line 2: the role is read or write, not admin"))
    }

    @Test("http_client_connections: an address holding its share gets no more; it does again once it lets go")
    func connectionsPerClientAddressAreBounded() async throws {
        let daemon = try await HTTPDaemon(rows: ["b1|Emma|Jane Austen"], settings: ["http_client_connections=4"])
        defer { daemon.stop() }
        #expect(try daemon.request("GET", "/v1/stores/default/books/b1").status == 200)
        var held = try (0..<4).map { _ in try HTTPTestClient(port: daemon.port) }
        for client in held { client.send("GET /v1/stores HTTP/1.1\r\nHost: 127.0.0.1:\(daemon.port)\r\nX-Slow: ") }
        // Once booksd has taken the four, a fifth from the same address is closed unanswered.
        let refused = await eventually(timeout: 10, interval: 0.2) {
            (try? HTTPTestClient.request("GET", "/v1/stores", port: daemon.port, timeout: 2)) == nil
        }
        #expect(refused, "a fifth connection from 127.0.0.1 was served")
        #expect(held.allSatisfy { $0.pump(timeout: 0.1) >= 0 && !$0.closed }, "the four held ones stay open")
        // The socket's clients are not HTTP connections: they are served meanwhile.
        let client = try await daemon.feed.connect()
        #expect(try await client.list().books.map(\.id) == ["b1"])
        held.removeAll()  // closes them
        let servedAgain = await eventually(timeout: 10, interval: 0.2) {
            (try? HTTPTestClient.request("GET", "/v1/stores", port: daemon.port, timeout: 2))?.status == 200
        }
        #expect(servedAgain)
    }
}
