/// Tab-separated results under `work/results/`, read back by `targets` and the plot script.
enum ResultsFile {
    /// Writes `rows` (each a list of fields) with a header line.
    static func write(_ name: String, header: [String], rows: [[String]], options: LiveOptions) {
        FileBytes.makeDirectory(options.resultsDirectory)
        let text = ([header] + rows).map { $0.joined(separator: "\t") }.joined(separator: "\n") + "\n"
        do { try FileBytes.write(Array(text.utf8), to: "\(options.resultsDirectory)/\(name).tsv") } catch {
            Console.error("could not write results \(name): \(error)")
        }
    }

    /// The rows of a results file as field dictionaries (empty when missing).
    static func read(_ name: String, options: LiveOptions) -> [[String: String]] {
        guard let bytes = try? FileBytes.read("\(options.resultsDirectory)/\(name).tsv") else { return [] }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        }
        guard let header = lines.first else { return [] }
        return lines.dropFirst().map { fields in
            Dictionary(uniqueKeysWithValues: zip(header, fields).map { ($0, $1) })
        }
    }

    /// Replaces the docs section `heading` with `markdown` (unless `--no-docs`) and prints it.
    static func publish(heading: String, markdown: String, options: LiveOptions) {
        Console.out(markdown)
        guard let docs = options.docsPath else { return }
        do {
            try DocsSection.replace(heading: heading, with: markdown, in: docs)
            Console.error("updated \(docs) (\(heading))")
        } catch {
            Console.error("could not update \(docs): \(error)")
        }
    }
}
