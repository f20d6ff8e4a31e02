/// The fish completion script: `complete -c booksctl` lines, conditioned on the command found by
/// `__booksctl_command` (which skips option values), and `__booksctl_arg` for positionals.
struct FishCompletion {
    let model: CompletionModel

    var script: String {
        var out = CompletionScript.header(.fish)
        let skipped = model.valueOptions.joined(separator: " ")
        out += """
            # The words of the line that are not options or option values: the command, then its
            # positional arguments.
            function __booksctl_words
                set -l tokens (commandline -opc)
                set -e tokens[1]
                set -l skip 0
                for t in $tokens
                    if test $skip = 1
                        set skip 0
                        continue
                    end
                    switch $t
                        case \(skipped)
                            set skip 1
                        case '-*'
                        case '*'
                            echo $t
                    end
                end
            end

            # The command on the line (status 1 when none yet).
            function __booksctl_command
                set -l words (__booksctl_words)
                set -q words[1]; or return 1
                echo $words[1]
            end

            function __booksctl_in
                set -l command (__booksctl_command); or return 1
                contains -- $command $argv
            end

            # True when the token being completed is positional argument INDEX of COMMAND
            # ("repeat": or a later one).
            function __booksctl_arg -a command index repeat
                set -l words (__booksctl_words)
                set -q words[1]; and test $words[1] = $command; or return 1
                set -l count (math (count $words) - 1)
                test $count -eq $index; or begin; test "$repeat" = repeat; and test $count -gt $index; end
            end

            function __booksctl_socket
                set -l tokens (commandline -opc)
                set -l i (contains -i -- --socket $tokens); and set -q tokens[(math $i + 1)]; and echo --socket $tokens[(math $i + 1)]
            end

            function __booksctl_ids
                set -l exe (commandline -opc)[1]
                $exe __complete ids (commandline -ct) (__booksctl_socket) 2>/dev/null
            end

            function __booksctl_stores
                set -l exe (commandline -opc)[1]
                $exe __complete stores (commandline -ct) (__booksctl_socket) 2>/dev/null
            end

            complete -c booksctl -f

            """
        for command in model.commands {
            out +=
                "complete -c booksctl -n 'not __booksctl_command >/dev/null' -a \(command.name) -d "
                + CompletionScript.quoted(command.summary, fish: true) + "\n"
        }
        for option in model.global {
            let condition = model.anywhere.contains(option) ? nil : "not __booksctl_command >/dev/null"
            out += line(option, condition: condition)
        }
        for command in model.commands {
            let condition = "__booksctl_in \(command.name)"
            for option in command.options { out += line(option, condition: condition) }
            for (index, value) in command.positionals.enumerated() {
                let repeated = command.repeatsLast && index == command.positionals.count - 1
                let test = "__booksctl_arg \(command.name) \(index)" + (repeated ? " repeat" : "")
                let values = value == .file ? "-F" : arguments(value)
                out += "complete -c booksctl -n \(CompletionScript.quoted(test, fish: true)) \(values)\n"
            }
        }
        return out
    }

    /// One `complete` line for `option`, under `condition` when given.
    private func line(_ option: CompletedOption, condition: String?) -> String {
        var parts = ["complete -c booksctl"]
        if let condition { parts.append("-n " + CompletionScript.quoted(condition, fish: true)) }
        parts.append("-l \(option.long)")
        if let short = option.short { parts.append("-s \(short)") }
        if let value = option.value { parts.append(arguments(value)) }
        parts.append("-d " + CompletionScript.quoted(option.help, fish: true))
        return parts.joined(separator: " ") + "\n"
    }

    /// The `complete` arguments that offer values of `kind` (and require one).
    private func arguments(_ kind: ValueKind) -> String {
        switch kind {
        case .text: return "-x"
        case .file: return "-r -F"
        case .command: return "-x -a '(__fish_complete_command)'"
        case .bookID: return "-x -a '(__booksctl_ids)'"
        case .store: return "-x -a '(__booksctl_stores)'"
        case .choices(let words): return "-x -a " + CompletionScript.quoted(words.joined(separator: " "), fish: true)
        }
    }
}
