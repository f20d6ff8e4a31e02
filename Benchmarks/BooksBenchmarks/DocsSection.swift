/// Replaces one `## ` section of a Markdown file, keeping every other section.
enum DocsSection {
    static func replace(heading: String, with section: String, in path: String) throws {
        let existing =
            (try? FileBytes.read(path)).map { String(decoding: $0, as: UTF8.self) }
            ?? "# BookSync benchmarks\n\nFigures are machine-specific; each section says how it was measured.\n"
        let updated = replacing(heading: heading, with: section, in: existing)
        try FileBytes.write(Array(updated.utf8), to: path)
    }

    /// `text` with the section starting at the line `heading` (up to the next `## ` line) replaced
    /// by `section`; appended when absent.
    static func replacing(heading: String, with section: String, in text: String) -> String {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let body = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var trimmed = body
        while trimmed.last == "" { trimmed.removeLast() }
        if let start = lines.firstIndex(of: heading) {
            let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.count
            let tail = end < lines.count ? [""] : []
            lines.replaceSubrange(start..<end, with: trimmed + tail)
        } else {
            if lines.last.map({ !$0.isEmpty }) ?? false { lines.append("") }
            lines.append(contentsOf: trimmed)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
