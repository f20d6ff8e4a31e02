/// An error raised by the test-support layer (a failed spawn, connect, write or start-up), with a
/// readable description for test failure messages.
public struct TestSupportError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, for people.
    public let description: String

    /// Creates an error that reads `description`.
    public init(_ description: String) { self.description = description }
}
