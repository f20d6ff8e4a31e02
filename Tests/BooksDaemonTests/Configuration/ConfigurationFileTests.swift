import Glibc
import Testing

@testable import BooksDaemon

private let fakeAccounts = AccountResolver(
    userID: { ["alice": 1001, "bob": 1002][$0] },
    groupID: { ["books": 2001, "staff": 50][$0] })

private func load(_ text: String) throws(ConfigurationError) -> DaemonConfiguration {
    try ConfigurationFile.parse(text).apply(resolver: fakeAccounts)
}

private func error(_ text: String) -> ConfigurationError? {
    do {
        _ = try load(text)
        return nil
    } catch { return error }
}

@Suite struct ConfigurationFileTests {
    @Test func defaults() {
        let c = DaemonConfiguration()
        #expect(c.filePath == "books.txt")
        #expect(c.format == .text)
        #expect(c.socketPath == nil)
        #expect(c.socketMode == 0o660)
        #expect(c.writerUIDs.isEmpty && c.writerGroups.isEmpty)
        #expect(c.confirmationMilliseconds == 1000)
        #expect(c.settleMilliseconds == 0)
        #expect(c.pollIntervalMilliseconds == 1000)
        #expect(c.forcePolling == false)
        #expect(c.changeLogRetention == 10_000)
        #expect(c.heartbeatSeconds == 30)
        #expect(c.maxClients == 1024)
        #expect(c.maxClientsPerUID == 64)
        #expect(c.idleTimeoutSeconds == 300)
        #expect(c.partialLineBudgetBytes == 64 * 1_048_576)
        #expect(c.maxRequestBytes == 1_048_576)
        #expect(c.clientQueueBytes == 8 * 1_048_576)
        #expect(c.helloTimeoutSeconds == 10)
        #expect(c.maxLineBytes == 1_048_576)
        #expect(c.logLevel == .info)
    }

    @Test func emptyAndCommentOnlyFilesGiveDefaults() throws {
        #expect(try load("") == DaemonConfiguration())
        #expect(try load("# comment\n\n   # indented comment\n\t\n") == DaemonConfiguration())
    }

    @Test func everyKey() throws {
        let text = """
            file = /var/lib/booksd/books.txt
            format = json
            socket = /run/booksd/booksd.sock
            socket_mode = 0600
            writer_users = alice, 0 ,bob
            writer_groups = books staff 7
            confirmation_ms = 2500
            settle_ms = 50
            poll_interval_ms = 250
            force_polling = yes
            allow_symlink = on
            change_log_retention = 42
            state_directory = /var/lib/booksd-history
            store_folder = /srv/lists
            replica_folder = /srv/copies
            heartbeat_seconds = 5
            max_clients = 16
            max_clients_per_uid = 0
            idle_timeout_seconds = 0
            partial_line_budget_bytes = 16M
            query_budget_ms = 0
            max_request_bytes = 64K
            client_queue_bytes = 2MiB
            page_budget_bytes = 128K
            hello_timeout_seconds = 3
            max_line_bytes = 4096
            log_level = DEBUG
            nats_url = nats://a:4222, nats://b:4222
            nats_credentials = /etc/booksd/booksd.creds
            nats_user = booksd
            nats_password = secret
            nats_token = t0ken
            nats_tls_ca = /etc/ssl/ca.pem
            nats_tls_cert = /etc/ssl/booksd.pem
            nats_tls_key = /etc/ssl/booksd.key
            nats_prefix = library
            nats_stream_replicas = 3
            nats_max_age_seconds = 86400
            nats_stream_max_bytes = 1G
            nats_allow_writes = no
            nats_buffer = 128
            nats_batch = 8
            max_stores = 500
            history_max_age = 7d
            history_max_bytes = 16M
            http_listen = 127.0.0.1:8080, [::1]:8080
            http_hosts = books.example.org
            http_tls_cert = /etc/booksd/http.crt
            http_tls_key = /etc/booksd/http.key
            http_token_file = /etc/booksd/http.token
            http_require_if_match = yes
            http_client_connections = 4
            """
        let c = try load(text)
        var expected = DaemonConfiguration()
        expected.filePath = "/var/lib/booksd/books.txt"
        expected.fileIsExplicit = true
        expected.storeFolder = "/srv/lists"
        expected.replicaFolder = "/srv/copies"
        expected.format = .json
        expected.socketPath = "/run/booksd/booksd.sock"
        expected.socketMode = 0o600
        expected.writerUIDs = [1001, 0, 1002]
        expected.writerGroups = [2001, 50, 7]
        expected.confirmationMilliseconds = 2500
        expected.settleMilliseconds = 50
        expected.pollIntervalMilliseconds = 250
        expected.forcePolling = true
        expected.allowSymlink = true
        expected.changeLogRetention = 42
        expected.stateDirectory = "/var/lib/booksd-history"
        expected.heartbeatSeconds = 5
        expected.maxClients = 16
        expected.maxClientsPerUID = 0
        expected.idleTimeoutSeconds = 0
        expected.partialLineBudgetBytes = 16 * 1_048_576
        expected.queryBudgetMilliseconds = 0
        expected.maxRequestBytes = 65_536
        expected.clientQueueBytes = 2 * 1_048_576
        expected.pageBudgetBytes = 131_072
        expected.helloTimeoutSeconds = 3
        expected.maxLineBytes = 4096
        expected.logLevel = .debug
        expected.nats.connection.urls = ["nats://a:4222", "nats://b:4222"]
        expected.nats.connection.credentialsFile = "/etc/booksd/booksd.creds"
        expected.nats.connection.user = "booksd"
        expected.nats.connection.password = "secret"
        expected.nats.connection.token = "t0ken"
        expected.nats.connection.tlsCAFile = "/etc/ssl/ca.pem"
        expected.nats.connection.tlsCertificateFile = "/etc/ssl/booksd.pem"
        expected.nats.connection.tlsKeyFile = "/etc/ssl/booksd.key"
        expected.nats.prefix = "library"
        expected.nats.streamReplicas = 3
        expected.nats.streamMaxAgeSeconds = 86400
        expected.nats.streamMaxBytes = 1 << 30
        expected.nats.allowWrites = false
        expected.nats.bufferCapacity = 128
        expected.nats.batchLimit = 8
        expected.maxStores = 500
        expected.historyMaxAgeSeconds = 7 * 86_400
        expected.historyMaxBytes = 16 << 20
        expected.http.listen = [.init(host: "127.0.0.1", port: 8080), .init(host: "::1", port: 8080)]
        expected.http.hosts = ["books.example.org"]
        expected.http.tlsCertificateFile = "/etc/booksd/http.crt"
        expected.http.tlsKeyFile = "/etc/booksd/http.key"
        expected.http.tokenFile = "/etc/booksd/http.token"
        expected.http.requireIfMatch = true
        expected.http.maxConnectionsPerClient = 4
        #expect(c == expected)
        #expect(Set(try ConfigurationFile.parse(text).entries.map(\.key)) == Set(ConfigurationKey.allCases))
    }

    @Test func quotedValues() throws {
        let c = try load(
            "file = \"/srv/my books/#1 \\\"best\\\".txt\"   \nsocket=\"/tmp/a b.sock\"\r\nlog_level = \"warning\"")
        #expect(c.filePath == "/srv/my books/#1 \"best\".txt")
        #expect(c.socketPath == "/tmp/a b.sock")
        #expect(c.logLevel == .warning)
    }

    @Test func unknownKeyNamesLineAndKey() {
        let e = error("# header\n\nfile = a\nsokcet = /x\n")
        #expect(e == .unknownKey(line: 4, key: "sokcet"))
        #expect(e?.description.contains("line 4") == true)
        #expect(e?.description.contains("sokcet") == true)
    }

    @Test func badValues() {
        #expect(
            error("max_clients = lots")
                == .invalidValue(
                    line: 1, key: "max_clients", value: "lots",
                    expected: ConfigurationKey.maxClients.expected))
        #expect(
            error("\nformat = yaml")
                == .invalidValue(
                    line: 2, key: "format", value: "yaml",
                    expected: ConfigurationKey.format.expected))
        for bad in [
            "socket_mode = 0999", "socket_mode = 01777", "force_polling = maybe", "log_level = loud",
            "max_clients = 0", "heartbeat_seconds = -1", "max_request_bytes = 10",
            "client_queue_bytes = 2T", "poll_interval_ms = 5", "file = ", "max_clients = 10 # comment",
            "writer_users = al/ice", "socket = /" + String(repeating: "s", count: 120),
            "max_clients_per_uid = -1", "idle_timeout_seconds = 86401", "partial_line_budget_bytes = 2G",
        ] {
            guard case .invalidValue(line: 1, _, _, _)? = error(bad) else {
                Issue.record("expected invalidValue for \(bad), got \(String(describing: error(bad)))")
                continue
            }
        }
        #expect(error("writer_users = carol") == .unknownUser(line: 1, key: "writer_users", name: "carol"))
        #expect(error("writer_groups = wheel") == .unknownGroup(line: 1, key: "writer_groups", name: "wheel"))
    }

    @Test func duplicateKey() {
        let e = error("file = a\nformat = text\nfile = b\n")
        #expect(e == .duplicateKey(line: 3, key: "file", firstLine: 1))
        #expect(e?.description == "line 3: duplicate key \"file\" (first set on line 1)")
    }

    @Test func syntaxErrors() {
        guard case .syntax(line: 2, _, _)? = error("file = a\njust words\n") else {
            Issue.record("no '='")
            return
        }
        guard case .syntax(line: 1, _, _)? = error("file = \"unterminated") else {
            Issue.record("quote")
            return
        }
        guard case .syntax(line: 1, _, _)? = error("file = \"a\" trailing") else {
            Issue.record("trailing")
            return
        }
        guard case .syntax(line: 1, _, _)? = error(" = value") else {
            Issue.record("empty key")
            return
        }
    }

    @Test func unreadableFile() {
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.load(path: "/nonexistent/booksd.conf") }
    }

    @Test func shippedConfigFileParsesAndHasEveryKey() throws {
        // The repository's config/booksd.conf must stay valid and document every key.
        let path = #filePath.split(separator: "/").dropLast(4).joined(separator: "/")
        let text = try ConfigurationFile.readText(path: "/" + path + "/config/booksd.conf")
        _ = try ConfigurationFile.parse(text).apply(resolver: fakeAccounts)
        for key in ConfigurationKey.allCases {
            #expect(
                text.contains("# \(key.rawValue) =") || text.contains("\n\(key.rawValue) ="),
                "\(key.rawValue) undocumented")
        }
    }

    @Test func effectiveSocketPath() {
        var c = DaemonConfiguration()
        #expect(
            c.effectiveSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/booksd.sock")
        #expect(c.effectiveSocketPath(environment: [:]) == ".booksd.sock")
        c.filePath = "/srv/data/books.txt"
        #expect(c.effectiveSocketPath(environment: ["XDG_RUNTIME_DIR": ""]) == "/srv/data/.booksd.sock")
        c.filePath = "data/books.txt"
        #expect(c.effectiveSocketPath(environment: [:]) == "data/.booksd.sock")
        c.socketPath = "/tmp/x.sock"
        #expect(c.effectiveSocketPath(environment: ["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/tmp/x.sock")
    }

    @Test func systemResolverKnowsRoot() {
        #expect(AccountResolver.system.userID("root") == 0)
        #expect(AccountResolver.system.groupID("root") == 0)
        #expect(AccountResolver.system.userID("no-such-user-booksd-test") == nil)
    }
}
