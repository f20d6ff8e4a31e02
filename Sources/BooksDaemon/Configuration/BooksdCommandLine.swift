import BooksCore
import Glibc

/// `booksd`'s command line, parsed, and its merge with the configuration file.
///
/// Precedence (highest first): command-line flags, the `--config` file, built-in defaults
/// (`DaemonConfiguration()`). Without `--config` no file is read.
public struct BooksdCommandLine: Sendable, Equatable {
    /// `--file PATH`.
    public var filePath: String?
    /// `--socket PATH`.
    public var socketPath: String?
    /// `--store NAME=PATH[:FORMAT]` (repeatable), in order.
    public var stores: [StoreSpec] = []
    /// `--replica NAME=PATH[:FORMAT]` (repeatable), in order.
    public var replicas: [StoreSpec] = []
    /// `--dir DIR`: the watched folder.
    public var storeFolder: String?
    /// `--replica-dir DIR`: the replica folder.
    public var replicaFolder: String?
    /// `--config PATH`.
    public var configPath: String?
    /// `--format text|json`.
    public var format: BookFileFormat?
    /// `--log-level LEVEL`.
    public var logLevel: LogLevel?
    /// `--check-config`.
    public var checkConfig = false
    /// `--help` / `-h`.
    public var help = false
    /// `--version`.
    public var version = false
    /// `--user`: a per-user daemon (`UserServicePaths`): its configuration file when it exists
    /// and `--config` is not given, its book file as the default.
    public var user = false
    /// The per-user book file default, set by `evaluate` for `--user`.
    public var userBookFile: String?
    /// `--set KEY=VALUE` (repeatable) and the shorthands for common keys, in order: any
    /// configuration key, applied after the configuration file.
    public var settings: [String] = []

    /// No flags.
    public init() {}

    /// The version printed by `--version`.
    public static let versionString = BookSyncVersion.line(program: "booksd")

    /// The complete `--help` text.
    public static let usage = """
        Usage: booksd [OPTIONS]

        Watch a hand-edited book file (rows "bookId|name|author") and serve its changes
        to clients over a Unix socket.

        Options:
          --config PATH       Read settings from PATH (booksd.conf format). Default: none.
                              The systemd unit passes /etc/booksd/booksd.conf.
          --file PATH         Book file to watch (config key "file"). Default: books.txt
                              With --store or --dir, it is served as the store "default".
          --store NAME=PATH[:FORMAT]
                              Serve the book file PATH as the store NAME (repeatable; FORMAT
                              text or json, default from the extension). Names: letters,
                              digits, '.', '_', '-', at most 64. Config: "store NAME = PATH".
          --replica NAME=PATH[:FORMAT]
                              Keep PATH a hand-editable copy of the store NAME that another
                              booksd owns, over NATS (needs nats_url; repeatable). Config:
                              "replica NAME = PATH [FORMAT]". See docs/SCALE-OUT.md.
          --replica-dir DIR   Keep a replica DIR/NAME.txt (or an existing DIR/NAME.json) of
                              every store the owner booksd publishes under nats_prefix,
                              stores published later included (config key
                              "replica_folder"; needs nats_url).
          --dir DIR           Serve every *.txt and *.json in DIR as a store named after the
                              file (config key "store_folder"); files created, moved in,
                              moved out or deleted add or remove their store live.
                              At most max_stores (default 10000) stores, fewer when
                              RLIMIT_NOFILE leaves fewer descriptors after those kept
                              for clients; sparse or zero-filled files are refused.
          --socket PATH       Listening socket path (config key "socket"). Default:
                              $XDG_RUNTIME_DIR/booksd.sock, else <dir of file>/.booksd.sock.
                              Ignored when systemd passes a socket (socket activation).
          --format FORMAT     Book file format: text or json (config key "format"). Default: text
          --log-level LEVEL   debug, info, notice, warning or error (config key "log_level").
                              Default: info
          --set KEY=VALUE     Set any configuration key (see booksd.conf(5)); repeatable.
                              Example: --set heartbeat_seconds=5 --set max_clients=64
          --confirmation-ms N Same as --set confirmation_ms=N: how long an empty, missing or
                              drastically shrunk file must stand still before it is believed.
          --force-polling     Same as --set force_polling=yes: poll instead of inotify.
          --state-directory PATH
                              Same as --set state_directory=PATH: where the epoch, book
                              versions and change log survive restarts ("none": nowhere).
                              Default: $STATE_DIRECTORY (systemd StateDirectory=), else
                              <dir of file>/.<file name>.history. A set directory holds one
                              subfolder per store (<PATH>/<store name>).
          --user              Per-user daemon (the systemctl --user service): read
                              $XDG_CONFIG_HOME/booksd/booksd.conf (~/.config/…) if it
                              exists and --config is not given; default book file
                              $XDG_DATA_HOME/booksd/books.txt (~/.local/share/…).
          --check-config      Validate the configuration file and flags, print the effective
                              settings (or the first error, or a book file or socket
                              directory that does not exist) and exit: 0 if valid, 2 if not.
          -h, --help          Print this help and exit.
          --version           Print the version and exit.

        NATS JetStream (docs/SCALE-OUT.md): --set nats_url=nats://host:4222[,…] publishes
        every change set to the stream <prefix>_default_changes (subject
        <prefix>.default.changes), mirrors the books into the key-value bucket
        <prefix>_default and answers socket-protocol requests on <prefix>.default.api;
        nats_credentials, nats_user/nats_password, nats_token, nats_tls_ca/cert/key,
        nats_prefix (default books), nats_stream_replicas, nats_max_age_seconds,
        nats_stream_max_bytes, nats_allow_writes, nats_buffer and nats_batch go with
        it. An unreachable NATS or refused credentials never stop local service; a
        conflicting existing stream does. nats_* settings apply at start only.

        HTTP (docs/HTTP.md): --set http_listen=127.0.0.1:8080[,[::1]:8080] serves a REST
        API (/v1/stores/<store>/books with ETags and If-Match), a change feed as
        Server-Sent Events (/v1/stores/<store>/changes, resumed by Last-Event-ID) and a
        live web page at /; http_hosts, http_tls_cert/key, http_token_file,
        http_require_if_match and http_client_connections go with it. A
        non-loopback address needs TLS and a token. http_* settings apply at start only.

        Flags override the configuration file; the file overrides built-in defaults.
        Every configuration key is documented in booksd.conf(5) and in the installed
        /etc/booksd/booksd.conf. Signals: SIGHUP reloads the configuration, SIGTERM stops.
        Exit status: 0 success, 1 runtime failure, 2 usage or configuration error.

        """

    /// Parses the arguments after the program name. Accepts `--flag value` and `--flag=value`.
    /// - Throws: `CommandLineError` for unknown flags, missing or invalid values, positional arguments.
    public static func parse(_ arguments: [String]) throws(CommandLineError) -> BooksdCommandLine {
        var result = BooksdCommandLine()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var inlineValue: String? = nil
            if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                name = String(argument[..<eq])
                inlineValue = String(argument[argument.index(after: eq)...])
            }
            func value() throws(CommandLineError) -> String {
                if let inlineValue { return inlineValue }
                guard index < arguments.count else { throw .missingValue(option: name) }
                index += 1
                return arguments[index - 1]
            }
            func flag() throws(CommandLineError) -> Bool {
                if inlineValue != nil { throw .unexpectedValue(option: name) }
                return true
            }
            func once<T>(_ current: T?, _ new: T) throws(CommandLineError) -> T {
                if current != nil { throw .duplicateOption(name) }
                return new
            }
            func path() throws(CommandLineError) -> String {
                let v = try value()
                guard !v.isEmpty else { throw .invalidValue(option: name, value: v, expected: "a non-empty path") }
                return v
            }
            func storeSpec(notIn given: [StoreSpec]) throws(CommandLineError) -> StoreSpec {
                let v = try value()
                let spec: StoreSpec
                do { spec = try StoreSpec.parse(v) } catch {
                    throw .invalidValue(option: name, value: v, expected: "NAME=PATH[:text|json] (\(error))")
                }
                guard !given.contains(where: { $0.name == spec.name }) else {
                    throw .invalidValue(option: name, value: v, expected: "a store name not given before")
                }
                return spec
            }
            switch name {
            case "--file": result.filePath = try once(result.filePath, path())
            case "--store": result.stores.append(try storeSpec(notIn: result.stores))
            case "--replica": result.replicas.append(try storeSpec(notIn: result.stores + result.replicas))
            case "--dir": result.storeFolder = try once(result.storeFolder, path())
            case "--replica-dir": result.replicaFolder = try once(result.replicaFolder, path())
            case "--socket":
                let v = try value()
                guard !v.isEmpty, v.utf8.count < 108 else {
                    throw .invalidValue(option: name, value: v, expected: ConfigurationKey.socket.expected)
                }
                result.socketPath = try once(result.socketPath, v)
            case "--config": result.configPath = try once(result.configPath, path())
            case "--format":
                let v = try value()
                guard let f = BookFileFormat(rawValue: v) else {
                    throw .invalidValue(option: name, value: v, expected: ConfigurationKey.format.expected)
                }
                result.format = try once(result.format, f)
            case "--log-level":
                let v = try value()
                guard let l = LogLevel(rawValue: v.lowercased()) else {
                    throw .invalidValue(option: name, value: v, expected: ConfigurationKey.logLevel.expected)
                }
                result.logLevel = try once(result.logLevel, l)
            case "--set":
                let v = try value()
                guard let eq = v.firstIndex(of: "="), eq != v.startIndex else {
                    throw .invalidValue(option: name, value: v, expected: "KEY=VALUE with a booksd.conf key")
                }
                result.settings.append(String(v[..<eq]) + " = " + String(v[v.index(after: eq)...]))
            case "--confirmation-ms": result.settings.append("confirmation_ms = " + (try value()))
            case "--state-directory": result.settings.append("state_directory = " + (try value()))
            case "--force-polling":
                _ = try flag()
                result.settings.append("force_polling = yes")
            case "--check-config": result.checkConfig = try flag()
            case "--user": result.user = try flag()
            case "--help", "-h": result.help = try flag()
            case "--version": result.version = try flag()
            default:
                if argument.hasPrefix("-") { throw .unknownOption(name) }
                throw .unexpectedArgument(argument)
            }
        }
        return result
    }

    /// The merged configuration: defaults, then the `--config` file (if any), then flags.
    /// - Parameter readFile: returns a file's text; injectable for tests.
    /// - Throws: any `ConfigurationError` from reading, parsing or applying the file.
    public func configuration(
        resolver: AccountResolver = .system,
        readFile: (String) throws(ConfigurationError) -> String = ConfigurationFile.readText
    )
        throws(ConfigurationError) -> DaemonConfiguration
    {
        var config = DaemonConfiguration()
        if let userBookFile { config.filePath = userBookFile }
        if let configPath {
            config = try ConfigurationFile.parse(readFile(configPath)).apply(to: config, resolver: resolver)
        }
        if !settings.isEmpty {
            config = try ConfigurationFile.parse(settings.joined(separator: "\n")).apply(to: config, resolver: resolver)
        }
        if let filePath {
            config.filePath = filePath
            config.fileIsExplicit = true
        }
        for spec in stores {
            if let index = config.stores.firstIndex(where: { $0.name == spec.name }) {
                config.stores[index] = spec  // the flag wins over the file's line
            } else {
                config.stores.append(spec)
            }
        }
        for spec in replicas {
            config.stores.removeAll { $0.name == spec.name }  // the flag wins over the file's line
            config.stores.append(spec)
            config.replicaStores.insert(spec.name)
        }
        if let storeFolder { config.storeFolder = storeFolder }
        if let replicaFolder { config.replicaFolder = replicaFolder }
        if let socketPath { config.socketPath = socketPath }
        if let format { config.format = format }
        if let logLevel { config.logLevel = logLevel }
        return config
    }

    /// Decides what `booksd` does for `arguments` (without the program name). Pure apart from the
    /// injected `readFile` and `resolver`: `--help` and `--version` win over everything; usage errors
    /// and configuration errors give status 2 with a message on stderr; `--check-config` prints the
    /// effective settings on stdout with status 0, or the paths a start would fail on
    /// (`DaemonConfiguration.pathProblems`, `isDirectory`) with status 2; otherwise `.run` with the
    /// merged configuration.
    public static func evaluate(
        arguments: [String],
        environment: [String: String] = ProcessEnvironment.current(),
        resolver: AccountResolver = .system,
        readFile: (String) throws(ConfigurationError) -> String = ConfigurationFile.readText,
        fileExists: (String) -> Bool = { access($0, F_OK) == 0 },
        isDirectory: (String) -> Bool = DaemonConfiguration.isDirectory
    )
        -> BooksdLaunch
    {
        var commandLine: BooksdCommandLine
        do {
            commandLine = try parse(arguments)
            if commandLine.user { try commandLine.applyUserPaths(environment: environment, fileExists: fileExists) }
        } catch {
            return .exit(
                status: 2, standardOutput: "",
                standardError: "booksd: \(error)\nTry 'booksd --help' for more information.\n")
        }
        if commandLine.help { return .exit(status: 0, standardOutput: usage, standardError: "") }
        if commandLine.version { return .exit(status: 0, standardOutput: versionString + "\n", standardError: "") }
        let config: DaemonConfiguration
        do {
            config = try commandLine.configuration(resolver: resolver, readFile: readFile)
        } catch {
            let prefix: String
            switch error {
            case .unreadableFile, .invalidEncoding: prefix = "booksd: "
            default: prefix = "booksd: \(commandLine.configPath ?? "configuration"): "
            }
            return .exit(status: 2, standardOutput: "", standardError: prefix + "\(error)\n")
        }
        if commandLine.checkConfig {
            let problems = config.pathProblems(environment: environment, isDirectory: isDirectory)
            if !problems.isEmpty {
                return .exit(
                    status: 2, standardOutput: "", standardError: problems.map { "booksd: \($0)\n" }.joined())
            }
            return .exit(
                status: 0,
                standardOutput: summary(of: config, source: commandLine.configPath, environment: environment),
                standardError: "")
        }
        return .run(config)
    }

    /// For `--user`: the per-user configuration file (when it exists and `--config` is not given)
    /// and book file default (`UserServicePaths`).
    /// - Throws: `CommandLineError.invalidValue` when neither `XDG_*` nor `HOME` is set.
    public mutating func applyUserPaths(
        environment: [String: String], fileExists: (String) -> Bool
    ) throws(CommandLineError) {
        guard let paths = UserServicePaths(environment: environment) else {
            throw .invalidValue(option: "--user", value: "", expected: "HOME or XDG_CONFIG_HOME/XDG_DATA_HOME set")
        }
        if configPath == nil, fileExists(paths.configFile) { configPath = paths.configFile }
        userBookFile = paths.bookFile
    }

    /// The `--check-config` report: a header naming the source, then one `key = value` line per key.
    public static func summary(of config: DaemonConfiguration, source: String?, environment: [String: String]) -> String
    {
        var text = "configuration OK (\(source.map { "file \($0)" } ?? "no configuration file"), flags applied)\n"
        let width = ConfigurationKey.allCases.map(\.rawValue.count).max() ?? 0
        for key in ConfigurationKey.allCases {
            let padding = String(repeating: " ", count: width - key.rawValue.count)
            text += "\(key.rawValue)\(padding) = \(key.formattedValue(in: config, environment: environment))\n"
        }
        for spec in config.effectiveStores {
            let kind = config.replicaStores.contains(spec.name) ? "replica" : "store"
            text += "\(kind) \(spec.name) = \(spec.path) \(spec.format)\n"
        }
        return text
    }
}
