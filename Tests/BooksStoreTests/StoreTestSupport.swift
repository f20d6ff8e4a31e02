import CLinux
import Glibc
import BooksCore
@testable import BooksStore

/// A fresh directory under /var/tmp, removed by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/var/tmp/booksync-store-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func write(_ name: String, _ bytes: [UInt8]) {
        let fd = open(file(name), O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0)
        _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    func read(_ name: String) -> [UInt8]? {
        if case .present(let bytes, _) = FileReader.read(file(name)) { return bytes }
        return nil
    }

    func names() -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var result: [String] = []
        while let entry = readdir(dir) {
            let name = String(cString: books_dirent_name(entry))
            if name != "." && name != ".." { result.append(name) }
        }
        return result.sorted()
    }

    func remove() {
        for name in names() { unlink(file(name)) }
        rmdir(path)
    }
}

func lines(_ rows: [String]) -> [UInt8] { Array(rows.map { $0 + "\n" }.joined().utf8) }
