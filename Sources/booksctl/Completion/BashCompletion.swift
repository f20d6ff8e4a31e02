/// The bash completion script: one function, `_booksctl`, registered with `complete -F`.
///
/// It walks `COMP_WORDS` to find the command and count positional arguments (skipping the values
/// of options that take one), then offers the value of the option before the cursor, the options
/// of the command, or its next positional argument.
struct BashCompletion {
    let model: CompletionModel

    var script: String {
        var out = CompletionScript.header(.bash)
        out += """
            # _booksctl_values KIND CUR [--socket PATH]: fill COMPREPLY with values of KIND.
            _booksctl_values() {
                local kind=$1 cur=$2
                shift 2
                local IFS=$'\\n'
                case $kind in
                    file) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
                    command) COMPREPLY=($(compgen -c -- "$cur")) ;;
                    id) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete ids "$cur" "$@" 2>/dev/null | cut -f1)" -- "$cur")) ;;
                    store) COMPREPLY=($(compgen -W "$("${COMP_WORDS[0]}" __complete stores "$cur" "$@" 2>/dev/null)" -- "$cur")) ;;
                    choices:*) COMPREPLY=($(IFS=' '; compgen -W "${kind#choices:}" -- "$cur")) ;;
                    *) COMPREPLY=() ;;
                esac
            }

            _booksctl() {
                local cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= word kind= opts= i skip=0 positional=0
                local -a socket=()
                (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
                for (( i = 1; i < COMP_CWORD; i++ )); do
                    word=${COMP_WORDS[i]}
                    if (( skip )); then skip=0; continue; fi
                    case $word in
                        --socket) socket=(--socket "${COMP_WORDS[i+1]}"); skip=1; continue ;;
                        \(alternatives(model.valueOptions))) skip=1; continue ;;
                        -*) continue ;;
                    esac
                    if [[ -z $cmd ]]; then cmd=$word; else (( positional++ )); fi
                done
                case $prev in
            \(valueCases(model.global, indent: "        "))
                esac
                if [[ -z $kind && -n $cmd ]]; then
                    case $cmd in

            """
        for command in model.commands {
            let cases = valueCases(command.options, indent: "                    ")
            guard !cases.isEmpty else { continue }
            out += "            \(command.name)) case $prev in\n\(cases)\n                esac ;;\n"
        }
        out += """
                    esac
                fi
                if [[ -n $kind ]]; then _booksctl_values "$kind" "$cur" "${socket[@]}"; return; fi
                if [[ -z $cmd ]]; then
                    if [[ $cur == -* ]]; then
                        COMPREPLY=($(compgen -W \(CompletionScript.quoted(spellings(model.global))) -- "$cur"))
                    else
                        COMPREPLY=($(compgen -W \(CompletionScript.quoted(model.commands.map(\.name).joined(separator: " "))) -- "$cur"))
                    fi
                    return
                fi
                case $cmd in

            """
        for command in model.commands {
            let opts = spellings(model.options(after: command))
            out += "        \(command.name))\n            opts=\(CompletionScript.quoted(opts))\n"
            let positionals = command.positionals.enumerated().map { index, value in
                "\(index)) kind=\(kind(value)) ;;"
            }
            var arms = positionals
            if command.repeatsLast, let last = command.positionals.last { arms.append("*) kind=\(kind(last)) ;;") }
            if !arms.isEmpty { out += "            case $positional in \(arms.joined(separator: " ")) esac\n" }
            out += "            ;;\n"
        }
        out += """
                esac
                if [[ $cur == -* ]]; then
                    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
                elif [[ -n $kind ]]; then
                    _booksctl_values "$kind" "$cur" "${socket[@]}"
                fi
            }

            complete -F _booksctl booksctl

            """
        return out
    }

    /// `--a|--b|-c`: a `case` pattern.
    private func alternatives(_ names: [String]) -> String {
        names.isEmpty ? "--booksctl-no-such-option" : names.joined(separator: "|")
    }

    private func spellings(_ options: [CompletedOption]) -> String {
        options.flatMap(\.spellings).joined(separator: " ")
    }

    /// `pattern) kind=…;;` lines for the options that take a value.
    private func valueCases(_ options: [CompletedOption], indent: String) -> String {
        options.compactMap { option in
            guard let value = option.value else { return nil }
            return indent + option.spellings.joined(separator: "|") + ") kind=\(kind(value)) ;;"
        }.joined(separator: "\n")
    }

    /// The `kind` word `_booksctl_values` understands, quoted for the shell.
    private func kind(_ value: ValueKind) -> String {
        switch value {
        case .text: return "text"
        case .file: return "file"
        case .command: return "command"
        case .bookID: return "id"
        case .store: return "store"
        case .choices(let words): return CompletionScript.quoted("choices:" + words.joined(separator: " "))
        }
    }
}
