/// Renders `booksctl --help` and `booksctl CMD --help`.
enum HelpText {
    /// The tool's help.
    static var tool: String {
        var out = """
            booksctl — talk to booksd, the daemon that keeps books.txt (rows id|name|author) live.

            USAGE
              booksctl [--socket PATH] [--store NAME] <command> [options]
              booksctl help [command]        booksctl <command> --help

            COMMANDS

            """
        let width = CommandCatalog.all.map(\.name.count).max() ?? 0
        for spec in CommandCatalog.all {
            out += "  " + spec.name.padding(width) + "  " + spec.summary + "\n"
        }
        out += """

            GLOBAL OPTIONS
              --socket PATH   the daemon's Unix socket (also accepted after the command)
              -s, --store NAME  the store to work on (or BOOKS_STORE; also after the command): needed
                              when the daemon serves several; subscribe takes it several times
                              and, without it, follows every store
              --nats URL[,URL…]  talk to booksd through NATS instead (or BOOKS_NATS), with the
                              same options and meanings: subscribe reads the JetStream stream,
                              the other commands are requests on <prefix>.<store>.api (a long
                              list in pages; docs/SCALE-OUT.md); with
                              --nats-creds FILE, --nats-user U --nats-password P, --nats-token T
                              (or BOOKS_NATS_CREDS, _USER, _PASSWORD, _TOKEN), --nats-prefix P
                              (default books) and --store NAME (default default)
              -h, --help      show help
              --version       print booksctl's version

            EXAMPLES
              booksctl list --author austen
              booksctl add 'Dune' 'Frank Herbert'
              booksctl subscribe --json
              booksctl --nats nats://nats1:4222 subscribe --json --since 0
              source <(booksctl completion bash)

            """
        out += "\n" + footer(HelpCommand.spec)
        return out
    }

    /// The help of one subcommand.
    static func command(_ spec: CommandSpec) -> String {
        var out = "booksctl \(spec.name) — \(spec.summary)\n\nUSAGE\n  \(spec.usage)\n"
        if !spec.positionals.isEmpty {
            out += "\nARGUMENTS\n"
            let width = spec.positionals.map(\.name.count).max() ?? 0
            for positional in spec.positionals {
                out += "  " + positional.name.padding(width) + "  " + positional.help + "\n"
            }
        }
        out += "\nOPTIONS\n"
        var rows = spec.options.map { option -> (String, String) in
            var left = option.short.map { "-\($0), " } ?? ""
            left += "--\(option.long)" + (option.valueName.map { " \($0)" } ?? "")
            return (left, option.help)
        }
        rows.append(("--socket PATH", "the daemon's Unix socket (see ENVIRONMENT)"))
        rows.append(("-s, --store NAME", "the store (see ENVIRONMENT; needed when the daemon has several)"))
        rows.append(("-h, --help", "show this help"))
        let width = rows.map(\.0.count).max() ?? 0
        for (left, help) in rows { out += "  " + left.padding(width) + "  " + help + "\n" }
        out += "\nDESCRIPTION\n"
        for paragraph in spec.details {
            for line in paragraph.split(separator: "\n", omittingEmptySubsequences: false) {
                out += wrap(String(line), width: 96, indent: "  ") + "\n"
            }
        }
        out += "\nEXAMPLES\n"
        for (line, explanation) in spec.examples { out += "  \(line)\n      \(explanation)\n" }
        out += "\n" + footer(spec)
        return out
    }

    /// Word-wraps `text` to `width` columns, each line prefixed by `indent` (long words are kept whole).
    static func wrap(_ text: String, width: Int, indent: String) -> String {
        let leading = String(text.prefix { $0 == " " })
        var lines: [String] = []
        var current = indent + leading
        let start = current.count
        for word in text.split(separator: " ") {
            if current.count > start && current.count + 1 + word.count > width {
                lines.append(current)
                current = indent + leading
            }
            current += (current.count > start ? " " : "") + word
        }
        lines.append(current)
        return lines.joined(separator: "\n")
    }

    private static func footer(_ spec: CommandSpec) -> String {
        var out = """
            ENVIRONMENT
              BOOKS_SOCKET      socket path when --socket is not given. Otherwise booksctl uses
                                $XDG_RUNTIME_DIR/booksd.sock if XDG_RUNTIME_DIR is set and the socket exists,
                                else ./.booksd.sock if it exists (booksd's default next to ./books.txt)
                                and is a socket owned by you or root (another user's is ignored, with
                                a warning), else /run/booksd/booksd.sock (the system service).
              BOOKS_STORE       the store when --store is not given.
              NO_COLOR          when set, never use colour (colour is only used on a terminal anyway).

            EXIT CODES

            """
        for code in ExitCode.allCases { out += "  \(code.rawValue)  \(code.help)\n" }
        if !spec.exitNotes.isEmpty {
            out += "  for \(spec.name): " + spec.exitNotes.joined(separator: "; ") + "\n"
        }
        return out
    }
}

extension String {
    /// Pads with spaces to `width` characters (never truncates).
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
