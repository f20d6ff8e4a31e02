import BooksCore
import BooksTestSupport
import Glibc
import Testing

@testable import BooksStore

/// `FileReader.compare` and its `SpliceScanner`: the splice found while reading in chunks must be
/// exactly the smallest one (`ByteSplice(from:to:)`), for any edit and any chunking.
@Suite struct FileReaderCompareTests {
    static func edited(_ old: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var new = old
        for _ in 0..<(1 + random.next(3)) {
            let at = random.next(new.count + 1)
            switch random.next(5) {
            case 0: new.insert(contentsOf: (0..<random.next(30)).map { _ in UInt8(97 + random.next(3)) }, at: at)
            case 1: new.removeSubrange(at..<min(new.count, at + random.next(30)))
            case 2: if at < new.count { new[at] = UInt8(97 + random.next(3)) }
            case 3: new.append(contentsOf: Array("x|y|z\n".utf8))
            default: new = Array(new.prefix(at))
            }
        }
        return new
    }

    func scan(_ old: [UInt8], _ new: [UInt8], chunks random: inout SplitMix64) -> ByteSplice? {
        var scanner = SpliceScanner(oldCount: old.count, newCount: new.count)
        old.withUnsafeBufferPointer { o in
            new.withUnsafeBufferPointer { n in
                var at = 0
                while at < new.count {
                    let size = min(new.count - at, 1 + random.next(40))
                    scanner.consume(
                        UnsafeBufferPointer(rebasing: n[at..<(at + size)]),
                        old: o.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    at += size
                }
            }
        }
        return scanner.finish(old: old)
    }

    @Test(arguments: 1...8 as ClosedRange<UInt64>)
    func scannerFindsTheSmallestSplice(seed: UInt64) {
        var random = SplitMix64(seed: seed)  // deterministic, so a failure names its seed
        for round in 0..<400 {
            // Small alphabets make repeated bytes (the hard case for prefix/suffix overlap).
            let old = (0..<random.next(120)).map { _ in UInt8(97 + random.next(3)) }
            let new = round % 7 == 0 ? old : Self.edited(old, &random)
            let expected = ByteSplice(from: old, to: new)
            let found = scan(old, new, chunks: &random)
            #expect(
                (found ?? ByteSplice(range: 0..<0, replacement: [])).isEmpty == expected.isEmpty,
                "seed \(seed) round \(round)")
            if let found {
                #expect(found == expected, "seed \(seed) round \(round): \(old) → \(new)")
                #expect(found.applied(to: old) == new)
            }
        }
    }

    @Test func compareReadsTheFileAndReportsTheSplice() throws {
        let dir = try TemporaryDirectory(prefix: "booksync-store")
        defer { dir.remove() }
        let path = dir.file("books.txt")
        // Larger than one chunk, so the comparison spans several reads.
        var old: [UInt8] = []
        for k in 0..<20_000 { old.append(contentsOf: Array("id-\(k)|Name \(k)|Author\n".utf8)) }
        #expect(old.count > FileReader.comparisonChunkSize)
        try dir.write("books.txt", old)
        guard case .unchanged = FileReader.compare(path, with: old) else {
            Issue.record("unchanged")
            return
        }

        var edited = old
        let middle = old.count / 2
        edited.replaceSubrange(middle..<(middle + 3), with: Array("CHANGED".utf8))
        edited.append(contentsOf: Array("new|Row|Writer\n".utf8))
        try dir.write("books.txt", edited)
        guard case .changed(let splice, let identity) = FileReader.compare(path, with: old) else {
            Issue.record("changed")
            return
        }
        #expect(splice == ByteSplice(from: old, to: edited))
        #expect(splice.applied(to: old) == edited)
        #expect(identity.size == edited.count)

        try dir.write("books.txt", [])
        guard case .changed(let emptied, _) = FileReader.compare(path, with: old) else {
            Issue.record("emptied")
            return
        }
        #expect(emptied == ByteSplice(range: 0..<old.count, replacement: []))
        guard case .unchanged = FileReader.compare(path, with: []) else {
            Issue.record("empty")
            return
        }
        try dir.write("books.txt", Array("a|b|c\n".utf8))
        guard case .changed(let filled, _) = FileReader.compare(path, with: []) else {
            Issue.record("filled")
            return
        }
        #expect(filled == ByteSplice(range: 0..<0, replacement: Array("a|b|c\n".utf8)))
        unlink(path)
        guard case .missing = FileReader.compare(path, with: old) else {
            Issue.record("missing")
            return
        }
        mkfifo(path, 0o600)
        guard case .unavailable = FileReader.compare(path, with: old) else {
            Issue.record("fifo")
            return
        }
    }
}

private extension SplitMix64 {
    /// A number in `0..<bound` (0 when `bound` is not positive).
    mutating func next(_ bound: Int) -> Int { Int.random(in: 0..<max(bound, 1), using: &self) }
}
