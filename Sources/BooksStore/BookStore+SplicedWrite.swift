import BooksCore

extension BookStore {
    /// Writes the text file `replaced` changed by `splice` (its identity `expected`) the way
    /// `writeCanonical(_:replacing:expected:)` writes it, from `replaced`'s bytes around the
    /// splice: no rendered copy of the whole file. Text files only.
    public func writeCanonical(
        _ splice: ByteSplice, onto replaced: [UInt8], expected: FileIdentity
    ) throws(BookFileError) -> AtomicWriteResult {
        precondition(configuration.format == .text, "a spliced write is for text files")
        let pieces = [
            replaced[..<splice.range.lowerBound], splice.replacement[...], replaced[splice.range.upperBound...],
        ]
        return try AtomicFileWriter.write(
            pieces: pieces, to: configuration.path, expected: expected, allowSymlink: configuration.allowSymlink,
            expectedContent: replaced)
    }
}
