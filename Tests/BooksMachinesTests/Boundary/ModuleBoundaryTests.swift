import BooksTestSupport
import FoundationEssentials
import Testing

/// The machines stay pure: BooksMachines depends on BooksCore and BooksProtocol only, and no
/// source file of it imports anything else (FoundationEssentials' value types aside). The one
/// suite of this target that reads files: the package's own sources, found from this file's path.
@Suite struct ModuleBoundaryTests {
    static let allowedImports: Set<String> = ["BooksCore", "BooksProtocol", "FoundationEssentials"]
    static let accessWords: Set<Substring> = ["public", "package", "internal", "private", "fileprivate"]

    /// The package root: three levels above this file (Tests/BooksMachinesTests/Boundary).
    static let root: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    @Test func theTargetDependsOnCoreAndProtocolOnly() throws {
        let manifest = try #require(TestFiles.readText(Self.root + "/Package.swift"))
        let line = try #require(
            manifest.split(separator: "\n").first { $0.contains(".target(name: \"BooksMachines\"") })
        #expect(line.contains("dependencies: [\"BooksCore\", \"BooksProtocol\"]"), "\(line)")
    }

    @Test func noSourceImportsAnIOModule() throws {
        let folder = Self.root + "/Sources/BooksMachines"
        let files = try FileManager.default.subpathsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 20)
        for file in files {
            let text = try #require(TestFiles.readText(folder + "/" + file))
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let at = words.firstIndex(of: "import"),
                    words[..<at].allSatisfy({ $0.hasPrefix("@") || Self.accessWords.contains($0) }),
                    let last = words.last, let module = last.split(separator: ".").first
                else { continue }
                #expect(Self.allowedImports.contains(String(module)), "\(file): \(line)")
            }
        }
    }
}
