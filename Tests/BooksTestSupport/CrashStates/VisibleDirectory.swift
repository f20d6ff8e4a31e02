/// What a reader of a `DirectoryImage` sees (see `DirectoryImage.visible`).
public struct VisibleDirectory: Sendable, Hashable {
    /// Each name's content and mode.
    public var files: [String: FileImage]
    /// Groups of names that are one inode.
    public var hardLinks: Set<[String]>
    /// Subdirectories.
    public var directories: Set<String>
}
