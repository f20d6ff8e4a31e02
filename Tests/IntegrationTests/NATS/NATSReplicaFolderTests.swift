import BooksTestSupport
import Glibc
import Testing

/// The replica folder (`--replica-dir DIR`): every store an owner booksd publishes gets a replica
/// file in DIR, stores it publishes later included (real nats-server, two booksd processes).
@Suite(.serialized, .enabled(if: NATSServerProcess.isInstalled, "needs nats-server (Debian package nats-server)"))
struct NATSReplicaFolderTests {
    /// A booksd with no `--file`, serving `arguments` (`--dir`, `--replica-dir`) over NATS.
    static func daemon(
        _ server: NATSServerProcess, _ scratch: TemporaryDirectory, _ name: String, _ arguments: [String]
    )
        async throws -> DaemonProcess
    {
        var options = DaemonOptions(socket: scratch.file("\(name).sock"), logPath: scratch.file("\(name).log"))
        options.settings = ["nats_url=\(server.url)", "state_directory=\(scratch.makeDirectory("\(name)-state"))"]
        options.logLevel = "debug"
        options.extraArguments = ["--confirmation-ms", "150"] + arguments
        options.environment = ChildEnvironment.current()
        return try await DaemonProcess.start(options, readyTimeout: 20)
    }

    /// Waits until `path` holds exactly `rows` (in any order).
    static func expectFile(_ path: String, _ rows: [String], logs: [DaemonProcess]) async {
        let expected = Set(rows)
        let same = await eventually(timeout: 60, interval: 0.1) {
            Set((TestFiles.readText(path) ?? "").split(separator: "\n").map(String.init)) == expected
        }
        let tails = logs.map { $0.logText.suffix(3000) }.joined(separator: "\n---\n")
        #expect(same, "\(path): \(TestFiles.readText(path) ?? "(missing)"), expected \(rows)\n\(tails)")
    }

    @Test func everyStoreOfTheOwnerGetsAReplicaFileAndAStoreAddedLaterAppears() async throws {
        let server = try NATSServerProcess()
        let scratch = try TemporaryDirectory(prefix: "replicafolder")
        defer { scratch.remove() }
        let lists = scratch.makeDirectory("lists")
        try TestFiles.write("1|Dune|Frank Herbert\n", to: lists + "/fiction.txt")
        try TestFiles.write("7|Walden|Thoreau\n", to: lists + "/essays.txt")
        let owner = try await Self.daemon(server, scratch, "owner", ["--dir", lists])
        defer { owner.stop() }
        let copies = scratch.path + "/copies"  // created by booksd
        let replica = try await Self.daemon(server, scratch, "replica", ["--replica-dir", copies])
        defer { replica.stop() }
        await Self.expectFile(copies + "/fiction.txt", ["1|Dune|Frank Herbert"], logs: [owner, replica])
        await Self.expectFile(copies + "/essays.txt", ["7|Walden|Thoreau"], logs: [owner, replica])
        // A store added on the owner later gets its replica; a hand edit there reaches the owner.
        try TestFiles.write("9|Kim|Rudyard Kipling\n", to: lists + "/poems.txt")
        await Self.expectFile(copies + "/poems.txt", ["9|Kim|Rudyard Kipling"], logs: [owner, replica])
        try TestFiles.append("10|If|Kipling\n", to: copies + "/poems.txt")
        await Self.expectFile(
            lists + "/poems.txt", ["9|Kim|Rudyard Kipling", "10|If|Kipling"], logs: [owner, replica])
        // The replica folder's stores are served on the replica's socket, not published from it.
        #expect(!replica.logText.contains("publishing to books."), "\(replica.logText.suffix(3000))")
    }
}
