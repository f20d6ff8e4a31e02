/// The content of a regular file in a `DirectoryImage`.
public struct FileImage: Sendable, Hashable {
    /// The file's bytes.
    public var bytes: [UInt8]
    /// Its permission bits (`0o644`).
    public var mode: UInt32

    /// A file holding `bytes` with `mode`.
    public init(bytes: [UInt8], mode: UInt32 = 0o644) {
        self.bytes = bytes
        self.mode = mode
    }
}

extension FileImage {
    static func resized(_ bytes: [UInt8], to size: Int) -> [UInt8] {
        if size <= bytes.count { return Array(bytes[..<size]) }
        return bytes + [UInt8](repeating: 0, count: size - bytes.count)
    }

    static func written(_ old: [UInt8], at offset: Int, _ bytes: [UInt8]) -> [UInt8] {
        var result = old.count < offset ? resized(old, to: offset) : old
        let end = offset + bytes.count
        if result.count < end { result += [UInt8](repeating: 0, count: end - result.count) }
        result.replaceSubrange(offset..<end, with: bytes)
        return result
    }
}
