/// A trace that cannot be read.
public struct StraceError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
