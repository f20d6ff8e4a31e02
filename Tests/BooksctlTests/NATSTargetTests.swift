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

    @Test func sinceTakesACursorASeqOrATime() throws {
        #expect(SinceOption(parsing: "0") == .seq(0))
        #expect(SinceOption(parsing: "42") == .seq(42))
        let epoch = "5A09FBA9-438A-4C0B-9F6E-2B3D6E7F8A90"
        #expect(SinceOption(parsing: "\(epoch):42") == .cursor(Cursor(epoch: epoch, seq: 42)))
        #expect(SinceOption(parsing: "E-1:42") == nil)
        #expect(SinceOption(parsing: "1970-01-01T00:00:01Z") == .time(Date(timeIntervalSince1970: 1)))
        let now = Date(timeIntervalSince1970: 86_400 * 2 + 600)
        #expect(SinceOption(parsing: "-10m", now: now, zone: .utc) == .time(Date(timeIntervalSince1970: 86_400 * 2)))
        #expect(SinceOption(parsing: "yesterday", now: now, zone: .utc) == .time(Date(timeIntervalSince1970: 86_400)))
        #expect(SinceOption(parsing: "2026-12-01T08:30+01:00") == .time(Date(timeIntervalSince1970: 1_796_110_200)))
        #expect(SinceOption(parsing: "soon") == nil)
    }
}
