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
}
