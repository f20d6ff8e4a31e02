import BooksProtocol
import FoundationEssentials
import Testing

@testable import booksctl

@Suite struct NATSTargetTests {
    @Test func natsOptionsAreTakenFromAnywhereOnTheLine() throws {
        let scanned = try NATSTarget.extract(
            from: [
                "list", "--nats", "nats://a:1, nats://b:2", "--json", "--nats-user=u", "--nats-password", "p",
                "--store", "shop",
            ],
            environment: { _ in nil })
        #expect(scanned.rest == ["list", "--json", "--store", "shop"], "--store is read by the parser")
        let target = try #require(scanned.target)
        #expect(target.options.urls == ["nats://a:1", "nats://b:2"])
        #expect(target.options.user == "u" && target.options.password == "p")
        #expect(target.store == "default" && target.prefix == "books")
    }

    @Test func theEnvironmentNamesTheServerWhenTheLineDoesNot() throws {
        let environment = ["BOOKS_NATS": "nats://env:4222", "BOOKS_NATS_TOKEN": "t"]
        let scanned = try NATSTarget.extract(from: ["get", "1"], environment: { environment[$0] })
        #expect(scanned.target?.options.urls == ["nats://env:4222"])
        #expect(scanned.target?.options.token == "t")
        #expect(try NATSTarget.extract(from: ["get", "1"], environment: { _ in nil }).target == nil)
    }

    @Test func aMissingOrEmptyURLIsAUsageError() {
        #expect(throws: UsageError.self) {
            try NATSTarget.extract(from: ["list", "--nats"], environment: { _ in nil })
        }
        #expect(throws: UsageError.self) {
            try NATSTarget.extract(from: ["list", "--nats", " , "], environment: { _ in nil })
        }
    }

    @Test func sinceTakesASequenceOrATime() throws {
        #expect(try NATSCommands.startPoint(nil) == .new)
        #expect(try NATSCommands.startPoint("0") == .all)
        #expect(try NATSCommands.startPoint("42") == .sequence(42))
        #expect(try NATSCommands.startPoint("1970-01-01T00:00:01Z") == .time(1_000_000_000))
        let now = Date(timeIntervalSince1970: 86_400 * 2 + 600)
        #expect(try NATSCommands.startPoint("-10m", now: now, zone: .utc) == .time(86_400 * 2 * 1_000_000_000))
        #expect(try NATSCommands.startPoint("yesterday", now: now, zone: .utc) == .time(86_400 * 1_000_000_000))
        #expect(throws: (any Error).self) { try NATSCommands.startPoint("soon") }
        #expect(throws: (any Error).self) { try NATSCommands.startPoint("5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90:3") }
    }
}
