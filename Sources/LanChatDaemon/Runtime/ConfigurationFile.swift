import Glibc
import LanChatControl
import LanChatCore
import Logging
import TOMLKit

/// `lanchatd.conf` (PRODUCT.md §2–§3): TOML, one key per long option. Parsed by TOMLKit
/// (toml++); this type owns the key table, the types each key takes, and the messages: every
/// error names the file, the line and the key, and exits 78 (`DaemonError.configuration`).
/// Nothing is half-applied: a file with one bad key gives no settings at all.
public enum ConfigurationFile {
    /// `$XDG_CONFIG_HOME/lanchat/lanchatd.conf`, else `~/.config/lanchat/lanchatd.conf`
    /// (`HomeDirectory`); nil, no file, when there is no home directory.
    public static func defaultPath(environment: [String: String], uid: uid_t = getuid())
        -> String?
    {
        if let configHome = environment["XDG_CONFIG_HOME"], configHome.hasPrefix("/") {
            return configHome + "/lanchat/lanchatd.conf"
        }
        return HomeDirectory.resolve(environment: environment, uid: uid).map {
            $0 + "/.config/lanchat/lanchatd.conf"
        }
    }

    /// The settings in the file at `path`. A missing file gives no settings unless `required`
    /// (`--config PATH` was given).
    public static func load(path: String, required: Bool, environment: [String: String])
        throws(DaemonError) -> DaemonSettings
    {
        let text: String
        // A configuration file is small; a huge one is a mistake, not a configuration.
        switch SmallFile.readWithFacts(path, maxBytes: 1 << 20) {
        case .success(let read):
            try checkOwnership(path, facts: read.facts, uid: getuid())
            try checkDirectory(of: path, uid: getuid())
            text = try utf8Text(read.bytes, path: path)
        case .failure(let failure) where failure.code == ENOENT && !required && !exists(path):
            return DaemonSettings()
        case .failure(let failure) where failure.code == EACCES && !required && !searchable(path):
            // The default file under a home this user may not enter (a system account's
            // /nonexistent, root's own): there is none for it, as when it is missing (found
            // by QA: refused with 78 even with --data-dir). A file that is there and cannot
            // be read is still refused.
            return DaemonSettings()
        case .failure(let failure) where failure.code == EFBIG:
            throw .configuration(
                "\(path): larger than 1 MiB; a configuration file is a few lines (lanchatd(8))")
        case .failure(let failure):
            throw .configuration("\(path): cannot read: \(failure.reason)")
        }
        return try parse(text, path: path, home: HomeDirectory.resolve(environment: environment))
    }

    /// The settings in `text`; `path` only names the file in messages.
    public static func parse(_ text: String, path: String, home: String? = nil)
        throws(DaemonError) -> DaemonSettings
    {
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let at = error.source.begin
            // The parser names no key; the line it stopped on usually does (lanchatd(8):
            // "the file, the line and the key").
            let key = Self.key(onLine: at.line, in: text).map { "\($0): " } ?? ""
            throw .configuration(
                "\(path):\(at.line):\(at.column): \(key)\(Self.plainReason(error.description))")
        } catch {
            throw .configuration("\(path): \(error)")
        }
        var settings = DaemonSettings()
        // In file order, so that the first bad key is the one reported.
        let entries = table.map { ($0.0, $0.1) }.sorted {
            (line(of: $0.0, in: text) ?? 0) < (line(of: $1.0, in: text) ?? 0)
        }
        for (key, value) in entries {
            let place = line(of: key, in: text).map { "\(path):\($0)" } ?? path
            guard let apply = keys[key] else {
                throw .configuration("\(place): unknown key '\(key)' (see lanchatd(8))")
            }
            do throws(KeyError) {
                try apply(&settings, value, KeyContext(home: home))
            } catch {
                throw .configuration("\(place): \(key): \(error.reason)")
            }
        }
        return settings
    }

    /// The TOML parser's words where a user would not recognise the mistake in them (found
    /// by QA); anything else as the parser says it.
    static func plainReason(_ parser: String) -> String {
        // The parser's own text garbles a quoted key ('"poport" '): left out.
        if parser.contains("cannot redefine existing") { return "the key is given twice" }
        if parser.contains("not representable in 64 bits") {
            return "the number is too large (at most 9223372036854775807)"
        }
        // The parser reaches the line's end inside the string, and names the line feed as a
        // control character the user never typed (found by QA).
        if parser.contains("unescaped control characters") {
            return "a string is not closed on its line (a quote is missing), or holds a "
                + "control character"
        }
        return parser
    }

    /// Why one key's value cannot be used.
    struct KeyError: Error {
        let reason: String
    }

    struct KeyContext {
        let home: String?
    }

    typealias Apply =
        @Sendable (inout DaemonSettings, any TOMLValueConvertible, KeyContext) throws(KeyError)
        -> Void

    /// Every key the file may hold: the long options of `lanchatd --help`, same names.
    /// `--config`, `--reset-identity` and `--repair-store` are not keys (one names the file,
    /// the others are one-off actions).
    static let keys: [String: Apply] = [
        "name": { settings, value, _ throws(KeyError) in
            let name = try string(value)
            if let problem = DaemonConfiguration.displayNameProblem(name) {
                throw KeyError(reason: problem)
            }
            settings.name = name
        },
        "data-dir": { settings, value, context throws(KeyError) in
            settings.dataDirectory = try absolutePath(value, context)
        },
        "socket": { settings, value, context throws(KeyError) in
            settings.socketPath = try absolutePath(value, context)
        },
        "port": { settings, value, _ throws(KeyError) in
            guard value.type == .int, let port = value.int else {
                throw KeyError(reason: "expected an integer, found \(value.type)")
            }
            guard (0...65535).contains(port) else {
                throw KeyError(reason: "must be 0 to 65535, not \(port)")
            }
            settings.port = port
        },
        "peer": { settings, value, _ throws(KeyError) in
            var peers: [StaticPeer] = []
            for text in try strings(value) {
                do throws(StaticPeer.ParseError) {
                    peers.append(try StaticPeer.parse(text))
                } catch {
                    throw KeyError(reason: "'\(text)': \(error.problem)")
                }
            }
            settings.peers = peers
        },
        "no-mdns": { settings, value, _ throws(KeyError) in
            settings.noMDNS = try bool(value)
        },
        "interface": { settings, value, _ throws(KeyError) in
            let names = try strings(value)
            if let problem = names.lazy.compactMap(DaemonConfiguration.interfaceNameProblem).first {
                throw KeyError(reason: problem)
            }
            settings.interfaces = names
        },
        "read-receipts": { settings, value, _ throws(KeyError) in
            // `true`/`false`, or the command line's words `"on"`/`"off"`.
            if value.type == .string {
                switch value.string {
                case "on": settings.readReceipts = true
                case "off": settings.readReceipts = false
                default: throw KeyError(reason: "expected true, false, \"on\" or \"off\"")
                }
            } else if value.type == .bool, let flag = value.bool {
                settings.readReceipts = flag
            } else {
                throw KeyError(
                    reason: "expected true, false, \"on\" or \"off\", found \(value.type)")
            }
        },
        "accept": { settings, value, _ throws(KeyError) in
            guard let policy = AcceptPolicy(option: try string(value)) else {
                throw KeyError(reason: "expected \"anyone\" or \"contacts\"")
            }
            settings.accept = policy
        },
        "notify-command": { settings, value, _ throws(KeyError) in
            let command = try string(value)
            if let problem = DaemonConfiguration.notifyCommandProblem(command) {
                throw KeyError(reason: problem)
            }
            settings.notifyCommand = command
        },
        "log-level": { settings, value, _ throws(KeyError) in
            guard let level = Logger.Level(rawValue: try string(value)) else {
                throw KeyError(
                    reason: "expected trace, debug, info, notice, warning, error or critical")
            }
            settings.logLevel = level
        },
    ]

    private static func string(_ value: any TOMLValueConvertible) throws(KeyError) -> String {
        guard value.type == .string, let text = value.string else {
            throw KeyError(reason: "expected a string, found \(value.type)")
        }
        return text
    }

    private static func bool(_ value: any TOMLValueConvertible) throws(KeyError) -> Bool {
        guard value.type == .bool, let flag = value.bool else {
            throw KeyError(reason: "expected true or false, found \(value.type)")
        }
        return flag
    }

    /// A list of strings; a single string is taken as a list of one.
    private static func strings(_ value: any TOMLValueConvertible) throws(KeyError) -> [String] {
        if value.type == .string, let text = value.string { return [text] }
        guard value.type == .array, let array = value.array else {
            throw KeyError(reason: "expected a list of strings, found \(value.type)")
        }
        var result: [String] = []
        for element in array {
            guard element.type == .string, let text = element.string else {
                throw KeyError(reason: "expected a list of strings, found \(element.type) in it")
            }
            result.append(text)
        }
        return result
    }

    /// An absolute path; `~/` stands for the home directory.
    private static func absolutePath(_ value: any TOMLValueConvertible, _ context: KeyContext)
        throws(KeyError) -> String
    {
        let path = try string(value)
        if path.hasPrefix("~/"), let home = context.home, home.hasPrefix("/") {
            return home + path.dropFirst(1)
        }
        guard path.hasPrefix("/") else {
            throw KeyError(reason: "must be an absolute path (or start with ~/), not '\(path)'")
        }
        return path
    }

    /// The file's lines. A Swift `Character` holds "\r\n" whole, so a file with Windows line
    /// ends split at "\n" alone was one line, and its errors lost their line (QA).
    static func lines(of text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }

    /// The bare key a `key = value` line `number` (from 1) starts with, if it does.
    static func key(onLine number: Int, in text: String) -> String? {
        let lines = lines(of: text)
        guard number >= 1, number <= lines.count else { return nil }
        var line = lines[number - 1].drop { $0 == " " || $0 == "\t" }
        // A quoted key ("port" or 'port') is the same key (found by QA: the message lost it).
        let quote = line.first.flatMap { $0 == "\"" || $0 == "'" ? $0 : nil }
        if quote != nil { line = line.dropFirst() }
        let key = line.prefix {
            $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_")
        }
        var after = line.dropFirst(key.count)
        if let quote {
            guard after.first == quote else { return nil }
            after = after.dropFirst()
        }
        after = after.drop { $0 == " " || $0 == "\t" }
        guard !key.isEmpty, after.first == "=" else { return nil }
        return String(key)
    }

    /// The 1-based line where `key` is defined: TOMLKit's tables do not keep source
    /// positions, so the text is searched for a line starting with the key (bare or quoted)
    /// followed by `=`, `.` (a dotted key) or `]` (a table header).
    static func line(of key: String, in text: String) -> Int? {
        var number = 0
        for line in lines(of: text) {
            number += 1
            var rest = line.drop { $0 == " " || $0 == "\t" }
            if rest.hasPrefix("[") { rest = rest.dropFirst().drop { $0 == "[" || $0 == " " } }
            for spelling in [key, "\"\(key)\"", "'\(key)'"] where rest.hasPrefix(spelling) {
                let after = rest.dropFirst(spelling.count).drop { $0 == " " || $0 == "\t" }
                if let next = after.first, next == "=" || next == "." || next == "]" {
                    return number
                }
            }
        }
        return nil
    }

    /// Whether there is something at `path` to read (a dangling link counts: reading it
    /// fails with the reason, rather than the file being taken for absent).
    /// The file decides what lanchatd runs (`notify-command`) and where it keeps its key: one
    /// that another user owns or may write is refused, as ssh refuses such a configuration.
    /// Root's files are trusted (a packaged default); so is a group-writable one of the
    /// user's own primary group (a umask of 002 with a group per user).
    /// `facts`: the `fstat` of the descriptor the file was read from, not a look by name.
    static func checkOwnership(_ path: String, facts: stat, uid: uid_t, gid: gid_t = getgid())
        throws(DaemonError)
    {
        if facts.st_uid != uid && facts.st_uid != 0 {
            throw .configuration(
                "\(path): owned by uid \(facts.st_uid), not by this user (uid \(uid)); "
                    + "its notify-command would run as you. Not read")
        }
        let groupMayWrite = facts.st_mode & S_IWGRP != 0 && facts.st_gid != gid
        if let writer = FileACL.otherWriter(of: path, uid: uid, gid: gid) {
            throw .configuration(
                "\(path): its access list lets \(writer) write it; its notify-command would "
                    + "run as you. Not read: setfacl -b \(path)")
        }
        if groupMayWrite || facts.st_mode & S_IWOTH != 0 {
            let mode = String(facts.st_mode & 0o777, radix: 8)
            throw .configuration(
                "\(path): other users may write it (mode \(mode)); its notify-command would "
                    + "run as you. Not read: chmod go-w \(path)")
        }
    }

    /// The directory the file is in: one that another user may write (and that no sticky bit
    /// guards) lets them put another file in its place at any time, so it is refused too,
    /// as ssh refuses it (found by QA: swapped in between two reloads' checks, an attacker's
    /// notify-command ran as the user). Where a symbolic link points is checked as well. A
    /// sticky directory of root's or ours (/tmp) is fine: no one else may replace our file.
    static func checkDirectory(of path: String, uid: uid_t, gid: gid_t = getgid())
        throws(DaemonError)
    {
        var directories = [directoryPart(of: path)]
        if let target = realpath(path, nil) {
            directories.append(directoryPart(of: String(cString: target)))
            free(target)
        }
        for directory in directories {
            let what: String
            switch DirectoryTrust.danger(of: directory, uid: uid, gid: gid) {
            case nil: continue
            case .ownedBy(let owner)?: what = "owned by uid \(owner)"
            case .writableByOthers(let mode)?: what = "writable by others (mode \(mode))"
            }
            throw .configuration(
                "\(path): its directory \(directory) is \(what), who could put another file in "
                    + "its place; its notify-command would run as you. Not read: chmod go-w "
                    + "\(directory), or keep the file elsewhere")
        }
    }

    /// Whether the directories on the way to `path` let this user look it up (a `stat` not
    /// refused with EACCES).
    static func searchable(_ path: String) -> Bool {
        var facts = stat()
        return stat(path, &facts) == 0 || errno != EACCES
    }

    static func exists(_ path: String) -> Bool {
        var facts = stat()
        return lstat(path, &facts) == 0
    }

    /// TOML is UTF-8; bytes that are not would reach a name or a path changed (U+FFFD), so
    /// they are refused with their line. So is a `\u0000` escape: the parser's strings end at
    /// a NUL, so it would cut a value short where it stands.
    static func utf8Text(_ bytes: [UInt8], path: String) throws(DaemonError) -> String {
        func lineOf(_ offset: Int) -> Int { bytes[..<offset].count { $0 == 0x0A } + 1 }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            var decoder = UTF8()
            var iterator = bytes.makeIterator()
            var offset = 0
            decoding: while true {
                switch decoder.decode(&iterator) {
                case .scalarValue(let scalar): offset += UTF8.width(scalar)
                case .emptyInput, .error: break decoding
                }
            }
            throw .configuration(
                "\(path):\(lineOf(offset)): not valid UTF-8 (a TOML file is UTF-8)")
        }
        for escape in ["\\u0000", "\\U00000000"] {
            if let found = text.utf8.firstRange(of: escape.utf8) {
                let offset = text.utf8.distance(from: text.utf8.startIndex, to: found.lowerBound)
                throw .configuration("\(path):\(lineOf(offset)): NUL (\(escape)) is not allowed")
            }
        }
        return text
    }
}
