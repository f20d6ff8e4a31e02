import BooksTestSupport
import Glibc
import Testing

/// `DirectoryImage` on disk: read, materialise elsewhere, read back.
@Suite struct DirectoryImageDiskTests {
    @Test func aMaterialisedImageReadsBackTheSame() throws {
        let source = try TemporaryDirectory(prefix: "crash-image-src")
        try source.write("books.txt", "a|A|B\n")
        try TestFiles.write(Array("record".utf8), to: source.file(".intent"), mode: 0o600)
        _ = source.makeDirectory("state")
        try source.write("state/journal", "1\n")
        #expect(link(source.file("books.txt"), source.file("books.link")) == 0)
        let (image, identities) = try DirectoryImage.read(source.path)
        #expect(image[".intent"]?.mode == 0o600)
        #expect(image.names["books.txt"] == image.names["books.link"])
        #expect(identities.count == 3)

        let copy = try TemporaryDirectory(prefix: "crash-image-copy")
        var rewritten: [String] = []
        let made = try image.materialize(at: copy.path) { name, bytes, identities in
            rewritten.append(name)
            return name == "state/journal" ? bytes + Array("\(identities.count)\n".utf8) : nil
        }
        #expect(made.count == 3)
        let (back, _) = try DirectoryImage.read(copy.path)
        var expected = image.visible
        expected.files["state/journal"]?.bytes = Array("1\n3\n".utf8)
        #expect(back.visible == expected)
        #expect(Set(rewritten) == [".intent", "books.link", "state/journal"])  // once per inode
    }
}
