/// The zsh completion script: `_booksctl`, built on `_arguments` (global options and the command
/// name first, then the command's own `_arguments` specs). Works autoloaded from `$fpath` (file
/// `_booksctl`) and sourced (`source <(booksctl completion zsh)`, which calls `compdef`).
struct ZshCompletion {
    let model: CompletionModel

    var script: String {
        var out = CompletionScript.header(.zsh)
        out += """
            # Book ids and store names from the daemon, as value:description pairs for _describe.
            _booksctl_ids() {
                local -a ids
                ids=(${(f)"$($_booksctl_exe __complete ids "$PREFIX" $_booksctl_socket 2>/dev/null)"})
                ids=(${ids//:/\\\\:})
                ids=(${ids//$'\\t'/:})
                _describe -t book-ids 'book id' ids
            }
            _booksctl_stores() {
                local -a stores
                stores=(${(f)"$($_booksctl_exe __complete stores "$PREFIX" $_booksctl_socket 2>/dev/null)"})
                _describe -t stores 'store' stores
            }

            _booksctl() {
                local _booksctl_exe=${words[1]} curcontext=$curcontext state state_descr line ret=1
                local -a _booksctl_socket
                local -A opt_args
                _arguments -C \\

            """
        for option in model.global { out += "        \(spec(option)) \\\n" }
        out += """
                    '1:command:->command' '*::argument:->argument' && ret=0
                [[ -n ${opt_args[--socket]} ]] && _booksctl_socket=(--socket ${opt_args[--socket]})
                case $state in
                    command)
                        local -a commands
                        commands=(

            """
        for command in model.commands {
            out += "                \(CompletionScript.quoted(command.name + ":" + command.summary))\n"
        }
        out += """
                        )
                        _describe -t commands 'booksctl command' commands && ret=0
                        ;;
                    argument)
                        curcontext=${curcontext%:*:*}:booksctl-$words[1]:
                        case $words[1] in

            """
        for command in model.commands {
            var specs = model.options(after: command).map(spec)
            for (index, value) in command.positionals.enumerated() {
                let repeated = command.repeatsLast && index == command.positionals.count - 1
                specs.append(CompletionScript.quoted("\(repeated ? "*" : String(index + 1)):value:\(action(value))"))
            }
            out += "                \(command.name))\n                    _arguments \\\n"
            out += specs.map { "                        \($0)" }.joined(separator: " \\\n")
            out += " && ret=0\n                    ;;\n"
        }
        out += """
                        esac
                        ;;
                esac
                return ret
            }

            if [[ ${zsh_eval_context[-1]} == loadautofunc ]]; then
                _booksctl "$@"
            else
                compdef _booksctl booksctl
            fi

            """
        return out
    }

    /// The `_arguments` spec of `option`, quoted.
    private func spec(_ option: CompletedOption) -> String {
        let help = "[" + option.help.replacing("[", with: "(").replacing("]", with: ")") + "]"
        let value = option.value.map { ":value:" + action($0) } ?? ""
        let long = "--" + option.long + (option.value == nil ? "" : "=")
        guard let short = option.short else { return CompletionScript.quoted(long + help + value) }
        let shortSpec = "-\(short)" + (option.value == nil ? "" : "+")
        return CompletionScript.quoted("(-\(short) --\(option.long))") + "{" + shortSpec + "," + long + "}"
            + CompletionScript.quoted(help + value)
    }

    /// The `_arguments` action completing a value of `kind`.
    private func action(_ kind: ValueKind) -> String {
        switch kind {
        case .text: return " "
        case .file: return "_files"
        case .command: return "_command_names -e"
        case .bookID: return "_booksctl_ids"
        case .store: return "_booksctl_stores"
        case .choices(let words): return "(" + words.joined(separator: " ") + ")"
        }
    }
}
