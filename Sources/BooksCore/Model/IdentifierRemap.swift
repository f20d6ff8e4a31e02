/// A temporary-to-permanent identifier assignment, as SwiftData reports in its save results.
///
/// A row typed by hand as `name|author` has no id; the store gives it a permanent UUID and rewrites
/// the line in place. `temporaryID` names the row as it was found (`line:N`, its 1-based line number
/// in the file that was read) so that a caller can tell which row got which id.
public struct IdentifierRemap: Sendable, Hashable, Codable {
    /// The row's temporary identity, `line:N`.
    public var temporaryID: String
    /// The permanent identifier the store assigned.
    public var permanentID: String

    /// Creates a remap entry.
    public init(temporaryID: String, permanentID: String) {
        self.temporaryID = temporaryID
        self.permanentID = permanentID
    }
}
