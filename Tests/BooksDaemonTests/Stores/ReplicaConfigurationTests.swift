import Testing

@testable import BooksDaemon

@Suite struct ReplicaConfigurationTests {
    @Test func replicaLinesAndFlagsAreStoresMarkedAsReplicas() throws {
        let file = try ConfigurationFile.parse("store own = own.txt\nreplica shared = /srv/shared.json\n").apply()
        #expect(file.effectiveStores.map(\.name.rawValue) == ["own", "shared"])
        #expect(file.effectiveStores[1].format == .json)
        #expect(file.replicaStores.map(\.rawValue) == ["shared"])
        #expect(throws: ConfigurationError.self) { try ConfigurationFile.parse("store a = x\nreplica a = y").apply() }

        let line = try BooksdCommandLine.parse(["--replica", "default=/home/u/books.txt", "--store", "b=b.txt"])
        let config = try line.configuration(readFile: { _ in "" })
        #expect(config.effectiveStores.map(\.name.rawValue) == ["b", "default"])
        #expect(config.effectiveStores.last?.path == "/home/u/books.txt")
        #expect(config.replicaStores == [.default])
        #expect(throws: CommandLineError.self) { try BooksdCommandLine.parse(["--store", "a=x", "--replica", "a=y"]) }
        #expect(throws: CommandLineError.self) { try BooksdCommandLine.parse(["--replica", "nopath"]) }
    }

    @Test func checkConfigListsReplicasAsReplicaLines() throws {
        let config = try BooksdCommandLine.parse(["--replica", "shared=/srv/s.txt"]).configuration(readFile: { _ in "" }
        )
        let summary = BooksdCommandLine.summary(of: config, source: nil, environment: [:])
        #expect(summary.contains("replica shared = /srv/s.txt text\n"))
    }
}
