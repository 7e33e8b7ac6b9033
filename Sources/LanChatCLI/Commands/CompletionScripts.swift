import ArgumentParser

/// The completion scripts: ArgumentParser's, generated from the command tree, with what
/// lanchat adds where they fall short (found by QA):
/// - `--opt=VALUE` is read as the option and its value (bash split it at `=` and took the
///   value for the command; zsh's specs took the option's value from the next word only);
/// - words match case-insensitively, as PEER resolves names (`chat jo` finds `José`);
/// - `help COMMAND` completes the commands (the generated scripts offered nothing).
/// Each edit is of a line the generator writes; the tests run the scripts in each shell.
enum CompletionScripts {
    static func script(for shell: CompletionShell) -> String {
        let generated = LanChatCommand.completionScript(for: shell)
        let script = generated.hasSuffix("\n") ? generated : generated + "\n"
        switch shell {
        case .zsh: return zsh(script)
        case .fish: return fish(script)
        default: return bash(script)
        }
    }

    /// The names `help` takes: the listed commands, and below those that have commands of
    /// their own (`group`), theirs.
    static var helpTopics: (commands: [String], below: [(String, [String])]) {
        let listed = LanChatCommand.configuration.subcommands.filter {
            $0.configuration.shouldDisplay
        }
        // The name a command is called by: its own, else the one made from its type's.
        let name = { (command: any ParsableCommand.Type) in command._commandName }
        let below = listed.compactMap { command -> (String, [String])? in
            let inner = command.configuration.subcommands.filter { $0.configuration.shouldDisplay }
            return inner.isEmpty ? nil : (name(command), inner.map(name))
        }
        return (listed.map(name), below)
    }

    // MARK: bash

    static func bash(_ script: String) -> String {
        // The generated filter runs `compgen -W`, which matches case-sensitively (and expands
        // the words): lanchat's matches without case, and takes the words as they are.
        let filter = "done < <(IFS=$'\\n' compgen \"${@}\" -- \"${cur}\")"
        let topics = helpTopics
        let helpCases =
            ["    1:*) __lanchat_add_completions -W \(bashWords(topics.commands)) ;;"]
            + topics.below.map { name, inner in
                "    2:\(name)) __lanchat_add_completions -W \(bashWords(inner)) ;;"
            }
        // The generator's flag filter counts the word being completed as given already, so
        // a whole `--wait` dropped itself and Tab made it `--wait-read`; and it looks for a
        // given option among the flags twice, so options were offered again (found by QA).
        let removal =
            "                local not_found=true\n"
        let currentStays =
            removal + """
                                if [[ "${word_index}" -eq "${unparsed_word_indices[${#unparsed_word_indices[@]} - 1]}" ]]; then
                                    unset "unparsed_words[${word_index}]"
                                    continue
                                fi

                """
        let secondLook =
            "                if \"${not_found}\"; then\n"
            + "                    for index in \"${!non_repeating_flags[@]}\"; do\n"
            + "                        if [[ \"${non_repeating_flags[${index}]}\" = \"${word}\" ]]; then\n"
            + "                            unset \"non_repeating_flags[${index}]\"\n"
            + "                            non_repeating_flags=(\"${non_repeating_flags[@]}\")\n"
        let optionsLook = secondLook.replacing("non_repeating_flags", with: "non_repeating_options")
        return script.replacing(filter, with: "done < <(__lanchat_matching \"${@}\")")
            .replacing(removal, with: currentStays).replacing(secondLook, with: optionsLook)
                + """

                # lanchat's additions (Sources/LanChatCLI/Commands/CompletionScripts.swift).

                # The words of a -W list that start with the current word, case aside; any other
                # kind as compgen gives it.
                __lanchat_matching() {
                    if [[ "${1}" != -W ]]; then
                        IFS=$'\\n' compgen "${@}" -- "${cur}"
                        return
                    fi
                    local word
                    local -r prefix="${cur,,}"
                    while IFS='' read -r word; do
                        [[ -n "${word}" && "${word,,}" == "${prefix}"* ]] && printf '%s\\n' "${word}"
                    done <<<"${2}"
                }

                # `help COMMAND [COMMAND]`: the command names.
                _lanchat_help() {
                    case "${#unparsed_words[@]}:${unparsed_words[0]}" in
                \(helpCases.joined(separator: "\n"))
                    esac
                }

                # Bash splits `--socket=PATH` at `=` (COMP_WORDBREAKS) into `--socket`, `=` and
                # `PATH`, which _lanchat reads as an option, its value `=` and a command `PATH`.
                # They are joined back into the one word it reads as it should; a value being
                # completed is instead the word after its option, and completes as its value.
                __lanchat_joining_values() {
                    local -a words=() spaced=() starts=()
                    local -i index cword=0
                    local rest="${COMP_LINE}" line="${COMP_LINE}" previous="${3}" word option
                    # Where each word starts on the line, and whether white space comes before it.
                    for index in "${!COMP_WORDS[@]}"; do
                        spaced[index]=0
                        while [[ "${rest}" == [[:space:]]* ]]; do
                            spaced[index]=1
                            rest="${rest:1}"
                        done
                        starts[index]=$((${#line} - ${#rest}))
                        rest="${rest#"${COMP_WORDS[index]}"}"
                    done
                    for ((index = 0; index < ${#COMP_WORDS[@]}; index++)); do
                        word="${COMP_WORDS[index]}"
                        option="${words[*]: -1}"
                        if [[ "${word}" != = || "${spaced[index]}" != 0 || "${option}" != --*
                            || "${option}" == *=* ]]; then
                            ((index == COMP_CWORD)) && cword=${#words[@]}
                            words+=("${word}")
                        elif ((index == COMP_CWORD)); then
                            # `--socket=<Tab>`: its value, empty, is being completed; the line
                            # read alike (`=` as a space, the same length).
                            line="${line:0:starts[index]} ${line:starts[index] + 1}"
                            previous="${option}"
                            cword=${#words[@]}
                            words+=('')
                        elif ((index + 1 == COMP_CWORD)) && [[ "${spaced[index + 1]}" == 0 ]]; then
                            # `--socket=/tm<Tab>`: the option, then the value being completed.
                            line="${line:0:starts[index]} ${line:starts[index] + 1}"
                            previous="${option}"
                            cword=${#words[@]}
                            words+=("${COMP_WORDS[index + 1]}")
                            index+=1
                        elif ((index + 1 < ${#COMP_WORDS[@]})) && [[ "${spaced[index + 1]}" == 0 ]]; then
                            words[${#words[@]} - 1]+="=${COMP_WORDS[index + 1]}"
                            index+=1
                        else
                            words[${#words[@]} - 1]+='='
                        fi
                    done
                    local -a COMP_WORDS=("${words[@]}")
                    local -i COMP_CWORD="${cword}"
                    local COMP_LINE="${line}"
                    _lanchat "${1}" "${2}" "${previous}"
                    __lanchat_completing_path "${previous}" || compopt +o filenames 2>/dev/null
                }

                # Whether the word being completed is a path (the value of --socket, the PATH of
                # `backup`): only then are the words offered file names, which bash quotes and
                # gives a `/` when a directory here has that name (found by QA: `send op<Tab>`
                # gave `ops/` in a directory holding `ops`).
                __lanchat_completing_path() {
                    [[ "${1}" == --socket ]] && return 0
                    local -i index
                    for ((index = 1; index < COMP_CWORD; index++)); do
                        case "${COMP_WORDS[index]}" in
                            --socket | --color) index+=1 ;;
                            -*) ;;
                            backup) return 0 ;;
                            *) return 1 ;;
                        esac
                    done
                    return 1
                }

                complete -o filenames -F __lanchat_joining_values lanchat

                """
    }

    /// `$'a\nb'`: words for `-W`, one a line (command names need no quoting).
    private static func bashWords(_ words: [String]) -> String {
        "$'" + words.joined(separator: "\\n") + "'"
    }

    // MARK: zsh

    static func zsh(_ script: String) -> String {
        var lines = script.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for index in lines.indices {
            lines[index] = zshTakingEquals(lines[index])
        }
        var text = lines.joined(separator: "\n")
        // `_describe` passes the options after the array to compadd: -M, a matcher that
        // lets either case match the other.
        text = text.replacing(
            "_describe -V '' non_empty_completions --",
            with:
                "_describe -V '' non_empty_completions -M 'm:{[:lower:][:upper:]}={[:upper:][:lower:]}' --"
        )
        let topics = helpTopics
        let helpCases =
            ["    2:*) __lanchat_complete \(topics.commands.joined(separator: " ")) ;;"]
            + topics.below.map { name, inner in
                "    3:\(name)) __lanchat_complete \(inner.joined(separator: " ")) ;;"
            }
        let help = """
            # lanchat's additions (Sources/LanChatCLI/Commands/CompletionScripts.swift).

            # `help COMMAND [COMMAND]`: the command names.
            _lanchat_help() {
                case "${CURRENT}:${words[2]}" in
            \(helpCases.joined(separator: "\n"))
                esac
            }


            """
        // Before the lines that run _lanchat: when zsh autoloads the file, they complete
        // at once, with the functions defined so far.
        let start = "if [[ \"${funcstack[1]}\" = _lanchat ]]; then"
        guard let run = text.ranges(of: start).last else { return text }
        text.insert(contentsOf: help, at: run.lowerBound)
        return text
    }

    /// An option spec of `_arguments` that takes a value, `'--socket[…]:path:…'`, written
    /// `'--socket=[…]…'`: the value may then be in the same word after `=` as well as in the
    /// next one.
    static func zshTakingEquals(_ line: String) -> String {
        let indent = line.prefix { $0 == " " }
        let spec = line.dropFirst(indent.count)
        guard spec.hasPrefix("'--"), let open = spec.firstIndex(of: "[") else { return line }
        let name = spec[spec.index(after: spec.startIndex)..<open]
        guard name.dropFirst(2).allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            return line
        }
        // The description's end: the first `]` not escaped by a backslash.
        var escaped = false
        var index = spec.index(after: open)
        while index < spec.endIndex {
            let character = spec[index]
            if character == "]" && !escaped { break }
            escaped = character == "\\" && !escaped
            index = spec.index(after: index)
        }
        let after = index < spec.endIndex ? spec.index(after: index) : spec.endIndex
        guard after < spec.endIndex, spec[after] == ":" else { return line }
        return indent + "'" + name + "=" + spec[open...]
    }

    // MARK: fish

    static func fish(_ script: String) -> String {
        // fish matches case-insensitively and reads `--socket=PATH` (argparse) by itself.
        let topics = helpTopics
        let condition = "__lanchat_should_offer_completions_for_positional \"lanchat help\""
        var lines = [
            "complete -c 'lanchat' -n '\(condition) -eq 1' -fka "
                + "'\(topics.commands.joined(separator: " "))'"
        ]
        for (name, inner) in topics.below {
            lines.append(
                "complete -c 'lanchat' -n '\(condition) -eq 2; and test "
                    + "(__lanchat_tokens -pc)[3] = \(name)' -fka '\(inner.joined(separator: " "))'")
        }
        return script + """

            # lanchat's additions (Sources/LanChatCLI/Commands/CompletionScripts.swift).
            # `help COMMAND [COMMAND]`: the command names.
            \(lines.joined(separator: "\n"))

            """
    }
}
