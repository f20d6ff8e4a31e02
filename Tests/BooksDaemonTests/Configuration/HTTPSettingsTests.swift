import Testing

@testable import BooksDaemon

/// The `http_*` keys: parsing, `--check-config`, and the refusal of a non-loopback address
/// without TLS and a token.
@Suite struct HTTPSettingsTests {
    static func parse(_ text: String) throws -> DaemonConfiguration {
        try ConfigurationFile.parse(text).apply()
    }

    @Test func listenAddressesParse() throws {
        let config = try Self.parse("http_listen = 127.0.0.1:8080, [::1]:8081\nhttp_require_if_match = yes\n")
        #expect(
            config.http.listen == [
                HTTPSettings.ListenAddress(host: "127.0.0.1", port: 8080),
                HTTPSettings.ListenAddress(host: "::1", port: 8081),
            ])
        #expect(config.http.listen.allSatisfy { $0.isLoopback })
        #expect(config.http.requireIfMatch)
        #expect(config.http.problems.isEmpty)
        #expect(ConfigurationKey.httpListen.formattedValue(in: config, environment: [:]) == "127.0.0.1:8080,[::1]:8081")
        #expect(!DaemonConfiguration().http.isEnabled)
        let unix = try Self.parse("http_listen = unix:/run/b/http.sock, 127.0.0.1:0\n").http.listen
        #expect(unix == [HTTPSettings.ListenAddress(unixPath: "/run/b/http.sock"), .init(host: "127.0.0.1", port: 0)])
        #expect(unix.first?.isLoopback == true && unix.first?.description == "unix:/run/b/http.sock")
        let tooLong = "unix:/" + String(repeating: "d", count: 120)
        for bad in ["localhost:80", "127.0.0.1", "127.0.0.1:99999", "[::1:80", "1.2.3:80", "unix:x", "unix:", tooLong] {
            #expect(throws: ConfigurationError.self, "\(bad)") { try Self.parse("http_listen = \(bad)\n") }
        }
    }

    @Test("a non-loopback address needs TLS and a token; a certificate needs its key")
    func nonLoopbackNeedsTLSAndToken() throws {
        #expect(try Self.parse("http_listen = 0.0.0.0:8080\n").http.problems.count == 1)
        #expect(
            try Self.parse("http_listen = 0.0.0.0:8080\nhttp_tls_cert = /c\nhttp_tls_key = /k\nhttp_token_file = /t\n")
                .http.problems.isEmpty)
        #expect(try Self.parse("http_tls_cert = /c\n").http.problems.count == 1)
    }

    @Test("--check-config fails (status 2) on a non-loopback http_listen without TLS and a token")
    func checkConfigRefusesNonLoopback() {
        let result = BooksdCommandLine.evaluate(
            arguments: [
                "--check-config", "--file", "/d/b.txt", "--socket", "/d/s", "--set", "http_listen=10.0.0.1:80",
            ],
            environment: [:], readFile: { _ throws(ConfigurationError) in "" }, isDirectory: { $0 == "/d" })
        guard case .exit(2, "", let err) = result else {
            Issue.record("\(result)")
            return
        }
        #expect(err.contains("http_listen = 10.0.0.1:80 is not a loopback address"))
    }
}
