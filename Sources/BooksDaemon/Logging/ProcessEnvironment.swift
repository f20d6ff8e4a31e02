import Glibc

/// Snapshot access to the process environment.
public enum ProcessEnvironment {
    /// A copy of the process environment taken now. Entries without `=` are skipped; on duplicate
    /// names the first wins (as `getenv` does).
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        var cursor = environ
        while let entry = cursor.pointee {
            let text = String(cString: entry)
            if let eq = text.firstIndex(of: "=") {
                let key = String(text[..<eq])
                if result[key] == nil { result[key] = String(text[text.index(after: eq)...]) }
            }
            cursor += 1
        }
        return result
    }
}
