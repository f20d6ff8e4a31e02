/// Medians measured for one file size (milliseconds unless noted).
struct SizeResult: Sendable {
    struct EditResult: Sendable {
        var kind: RowEdit.Kind
        var incrementalMS: Double
        var fullMS: Double
        /// The path `update(to:)` reported (should be `incremental`).
        var path: String
        var ratio: Double { fullMS / incrementalMS }
    }

    var rows: Int
    var fileBytes: Int
    var runs: Int
    var swiftParseMS: Double
    var swiftReadParseMS: Double
    /// CPU time (user + system) of the parse: less sensitive than wall time to other load.
    var swiftParseCPUMS: Double
    var pythonParseMS: Double?
    var pythonParseCPUMS: Double?
    var pythonReadParseMS: Double?
    var edits: [EditResult] = []

    var parseRatio: Double? { pythonParseMS.map { $0 / swiftParseMS } }
    var parseCPURatio: Double? { pythonParseCPUMS.map { $0 / swiftParseCPUMS } }
    var readParseRatio: Double? { pythonReadParseMS.map { $0 / swiftReadParseMS } }
}

/// Peak memory of a process that loads, parses and holds one file.
struct MemoryResult: Sendable {
    var rows: Int
    var fileBytes: Int
    var swiftPeakKB: Int
    var swiftBaselineKB: Int
    var pythonPeakKB: Int?

    var fileMB: Double { Double(fileBytes) / 1_048_576 }
    var swiftMB: Double { Double(swiftPeakKB) / 1024 }
    var pythonMB: Double? { pythonPeakKB.map { Double($0) / 1024 } }
    var ratioToFile: Double { swiftMB / fileMB }
}
