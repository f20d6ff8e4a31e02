import BooksClient
import BooksCore
import BooksTestSupport
import Foundation
import Testing

/// `Examples/Importer` (BooksImporterExample) run against a real daemon.
extension FeedTests {
    @Test("the importer example updates, inserts and prunes in one save; the file holds the result")
    func importerExample() async throws {
        let daemon = try await FeedDaemon(rows: ["b1|Dune|Herbert", "b2|Emma|Jane Austen", "b3|Ulysses|James Joyce"])
        let input = daemon.directory + "/import.tsv"
        try "# name\tauthor\nDune\tFrank Herbert\nEmma\tJane Austen\nWalden\tHenry Thoreau\nBeloved\tToni Morrison\n"
            .write(toFile: input, atomically: true, encoding: .utf8)
        let writesBefore = Self.durableWrites(daemon)
        let run = try await FeedProcess.run(
            BuildProducts.binDirectory + "/BooksImporterExample", ["--socket", daemon.socket, "--prune", input])
        #expect(run.status == 0, "\(run.err)")
        #expect(run.out.contains("imported: 2 inserted, 1 updated, 1 deleted"), "\(run.out)")
        let printed = run.out.split(separator: "\n").filter { $0.hasPrefix("inserted ") }.map {
            $0.split(separator: " ").map(String.init)
        }
        let file = try daemon.fileBooks()
        #expect(file.map(\.name).sorted() == ["Beloved", "Dune", "Emma", "Walden"])
        #expect(file.first { $0.id == "b1" }?.author == "Frank Herbert")
        #expect(!file.contains { $0.id == "b3" })
        #expect(printed.count == 2)
        for words in printed {
            #expect(file.first { $0.id == words[1] }?.name == words[2], "the printed id is the one in the file")
        }
        #expect(Self.durableWrites(daemon) == writesBefore + 1, "one save")
        // Run again: nothing to do, the file stays as it is.
        let again = try await FeedProcess.run(
            BuildProducts.binDirectory + "/BooksImporterExample", ["--socket", daemon.socket, input])
        #expect(again.out.contains("imported: 0 inserted, 0 updated, 0 deleted"), "\(again.out) \(again.err)")
        #expect(try daemon.fileBooks() == file)
    }
}
