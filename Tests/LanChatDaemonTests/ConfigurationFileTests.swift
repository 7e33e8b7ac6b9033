import CXattr
import Foundation
import Glibc
import LanChatCore
import Logging
import Testing

@testable import LanChatDaemon

/// lanchatd.conf (PRODUCT.md §2–§3): every long option is a key, the command line wins, and
/// every mistake names the file, the line and the key and exits 78.
@Suite struct ConfigurationFileTests {
    static let path = "/home/u/.config/lanchat/lanchatd.conf"

    func parse(_ text: String) throws(DaemonError) -> DaemonSettings {
        try ConfigurationFile.parse(text, path: Self.path, home: "/home/u")
    }

    func failure(_ text: String) -> DaemonError? {
        do {
            _ = try parse(text)
            return nil
        } catch {
            return error
        }
    }

    @Test func everyKeyIsRead() throws {
        let settings = try parse(
            """
            # a comment
            name = "alice"
            data-dir = "~/chat"
            socket = "/run/user/1000/lanchat/lanchatd.sock"
            port = 7000
            peer = ["10.0.0.5:7000", "[fe80::1%eth0]:7001"]
            no-mdns = true
            interface = ["eth0", "wlan0"]
            read-receipts = false
            log-level = "debug"
            notify-command = 'notify-send "$LANCHAT_FROM" "$LANCHAT_TEXT"'
            """)
        #expect(settings.name == "alice")
        #expect(settings.dataDirectory == "/home/u/chat")
        #expect(settings.socketPath == "/run/user/1000/lanchat/lanchatd.sock")
        #expect(settings.port == 7000)
        #expect(settings.peers?.map(\.description) == ["10.0.0.5:7000", "[fe80::1%eth0]:7001"])
        #expect(settings.noMDNS == true)
        #expect(settings.interfaces == ["eth0", "wlan0"])
        #expect(settings.readReceipts == false)
        #expect(settings.logLevel == .debug)
        #expect(settings.notifyCommand == #"notify-send "$LANCHAT_FROM" "$LANCHAT_TEXT""#)
    }

    /// The commented example `make install` puts in the docs: uncommented, every line it
    /// offers is a key the daemon reads, and the keys it offers are all there are.
    @Test func theInstalledExampleNamesEveryKeyAndParsesUncommented() throws {
        // This file is Tests/LanChatDaemonTests/…; the example is systemd/….
        let root = #filePath.split(separator: "/", omittingEmptySubsequences: false)
            .dropLast(3).joined(separator: "/")
        let example = try String(
            contentsOfFile: root + "/systemd/lanchatd.conf.example", encoding: .utf8)
        let settings = example.split(separator: "\n").filter { $0.hasPrefix("#") }
            .map { $0.dropFirst() }
            .filter { line in
                let key = line.split(separator: "=").first?.trimmingCharacters(in: .whitespaces)
                return key.map { ConfigurationFile.keys[$0] != nil } ?? false
            }
        let offered = Set(
            settings.compactMap {
                $0.split(separator: "=").first?.trimmingCharacters(in: .whitespaces)
            })
        #expect(offered == Set(ConfigurationFile.keys.keys))
        _ = try parse(settings.joined(separator: "\n"))
    }

    @Test func anEmptyNotifyCommandTurnsItOffAndTheCommandLineWins() throws {
        let file = try parse(#"notify-command = "beep""#)
        var commandLine = DaemonSettings()
        commandLine.notifyCommand = ""
        let base = DaemonConfiguration(name: "a", dataDirectory: "/d", socketPath: "/s")
        #expect(file.applied(to: base).notifyCommand == "beep")
        #expect(file.overlaid(by: commandLine).applied(to: base).notifyCommand == nil)
        #expect(failure("notify-command = 3")?.exitCode == 78)
    }

    @Test func readReceiptsTakesTheCommandLineWordsToo() throws {
        #expect(try parse(#"read-receipts = "off""#).readReceipts == false)
        #expect(try parse(#"read-receipts = "on""#).readReceipts == true)
        #expect(failure(#"read-receipts = "maybe""#)?.exitCode == 78)
    }

    @Test func acceptTakesAnyoneOrContacts() throws {
        #expect(try parse(#"accept = "contacts""#).accept == .contacts)
        #expect(try parse(#"accept = "anyone""#).accept == .anyone)
        #expect(failure(#"accept = "friends""#)?.exitCode == 78)
        #expect(failure("accept = true")?.exitCode == 78)
        var file = DaemonSettings()
        file.accept = .contacts
        var flags = DaemonSettings()
        flags.accept = .anyone
        let defaults = DaemonConfiguration(name: "a", dataDirectory: "/d", socketPath: "/s")
        #expect(file.applied(to: defaults).accept == .contacts)
        #expect(file.overlaid(by: flags).applied(to: defaults).accept == .anyone)
        #expect(defaults.accept == .anyone)
    }

    @Test func unknownKeyNamesFileLineAndKey() throws {
        let error = try #require(failure("name = \"a\"\n\ncolour = \"blue\"\n"))
        #expect(error.exitCode == 78)
        #expect(error.description.hasPrefix("\(Self.path):3: unknown key 'colour'"), "\(error)")
    }

    /// A file with Windows line ends (an editor's, a copy from another system) names its
    /// lines as one with "\n" does (found by QA: the line was left out).
    @Test(arguments: [
        ("name = \"a\"\r\n\r\ncolour = \"blue\"\r\n", ":3: unknown key 'colour'"),
        ("# settings\r\n  port = 70000\r\n", ":2: port: must be 0 to 65535"),
        ("name = \"alice\"\r\nport = 99999999999999999999\r\n", ":2:"),
    ])
    func windowsLineEndsKeepTheLine(_ text: String, _ place: String) throws {
        let error = try #require(failure(text))
        #expect(error.exitCode == 78)
        #expect(error.description.hasPrefix(Self.path + place), "\(error)")
    }

    @Test func aTableIsAnUnknownKeyAtItsHeader() throws {
        let error = try #require(failure("port = 1\n[peers]\nx = 1\n"))
        #expect(error.description.hasPrefix("\(Self.path):2: unknown key 'peers'"), "\(error)")
    }

    @Test(arguments: [
        ("port = \"7000\"", "port: expected an integer, found string"),
        ("port = 70000", "port: must be 0 to 65535"),
        ("name = 5", "name: expected a string, found integer"),
        ("name = \"\"", "name: must be 1 to 64 bytes"),
        ("name = \"a\\tb\"", "name: cannot contain control characters or bidi overrides"),
        ("name = \"a\\u202Eb\"", "name: cannot contain control characters or bidi overrides"),
        ("no-mdns = \"yes\"", "no-mdns: expected true or false, found string"),
        (
            "read-receipts = 1",
            "read-receipts: expected true, false, \"on\" or \"off\", found integer"
        ),
        ("peer = [1]", "peer: expected a list of strings, found integer in it"),
        ("peer = [\"nowhere\"]", "peer: 'nowhere': expected [ID@]HOST:PORT"),
        ("peer = [\"a..b:1\"]", "peer: 'a..b:1': 'a..b' is not a host name or an IP address"),
        ("data-dir = \"relative\"", "data-dir: must be an absolute path"),
        ("log-level = \"loud\"", "log-level: expected trace, debug"),
        // Names no Linux interface can have (found by QA: taken, "used once it appears").
        ("interface = [\"\"]", "interface: is empty"),
        ("interface = [\"eth0\", \"sixteen-bytes-xx\"]", "interface: 'sixteen-bytes-xx' is longer"),
        ("interface = \"a/b\"", "interface: 'a/b' cannot be an interface name"),
        ("interface = \"eth0:1\"", "interface: 'eth0:1' cannot be an interface name"),
        ("interface = \"eth0 \"", "interface: 'eth0 ' cannot be an interface name"),
        (
            "notify-command = \"\(String(repeating: "x", count: 131_072))\"",
            "notify-command: is longer than 128 KiB"
        ),
    ])
    func wrongValueNamesFileLineAndKey(_ line: String, _ reason: String) throws {
        let error = try #require(failure("# settings\n  \(line)\n"))
        #expect(error.exitCode == 78)
        #expect(error.description.hasPrefix("\(Self.path):2: \(reason)"), "\(error)")
    }

    @Test func syntaxErrorNamesLineAndColumn() throws {
        let error = try #require(failure("name = \"alice\"\nport = = 3\n"))
        #expect(error.exitCode == 78)
        #expect(error.description.hasPrefix("\(Self.path):2:"), "\(error)")
    }

    /// The parser names no key; the line does, so the message does too (found by QA: a
    /// number too big for 64 bits, a string left open).
    @Test(arguments: [
        ("name = \"alice\"\nport = 99999999999999999999\n", ":2:", "port: "),
        ("  name = \"a\nport = 1\n", ":1:", "name: "),
    ])
    func aSyntaxErrorInAValueNamesItsKey(text: String, line: String, key: String) throws {
        let error = try #require(failure(text))
        #expect(error.description.hasPrefix(Self.path + line), "\(error)")
        #expect(error.description.contains(": " + key), "\(error)")
    }

    /// The parser's words, said as the mistake a user made (found by QA).
    @Test(arguments: [
        ("port = 99999999999999999999\n", "port: the number is too large"),
        ("name = \"a\"\nname = \"b\"\n", "name: the key is given twice"),
        ("port = 1\n\"port\" = 2\n", ":2:10: port: the key is given twice"),
        ("port = 1\n'port' = 2\n", "port: the key is given twice"),
        (
            "name = \"x\"\nlog-level = \"info\n",
            ":2:18: log-level: a string is not closed on its line"
        ),
    ])
    func aParserErrorSaysTheMistake(text: String, reason: String) throws {
        let error = try #require(failure(text))
        #expect(error.description.contains(reason), "\(error)")
    }

    /// A file another user may write, or owns, decides what runs as us (`notify-command`):
    /// refused with exit 78 and what to do; our own, and a group-writable one of our own
    /// primary group (umask 002), are read.
    @Test func aFileOthersMayWriteIsRefused() throws {
        let directory = NSTemporaryDirectory() + "lanchat-conf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lanchatd.conf"
        try Data("name = \"x\"\n".utf8).write(to: URL(fileURLWithPath: path))
        func load() throws(DaemonError) -> DaemonSettings {
            try ConfigurationFile.load(path: path, required: true, environment: [:])
        }
        func refusal() -> DaemonError? {
            do {
                _ = try load()
                return nil
            } catch {
                return error
            }
        }
        #expect(chmod(path, 0o664) == 0)
        #expect(try load().name == "x")
        #expect(chmod(path, 0o646) == 0)
        let writable = try #require(refusal())
        #expect(writable.exitCode == 78)
        #expect(writable.description.contains("chmod go-w \(path)"), "\(writable)")
        // Another group, another owner: only root can make them.
        guard getuid() == 0 else { return }
        #expect(chown(path, 0, 65534) == 0)
        #expect(chmod(path, 0o664) == 0)
        #expect(refusal()?.description.contains("other users may write it") == true)
        #expect(chmod(path, 0o644) == 0)
        #expect(try load().name == "x")
        #expect(chown(path, 65534, 65534) == 0)
        let foreign = try #require(refusal())
        #expect(foreign.description.contains("owned by uid 65534"), "\(foreign)")
    }

    /// A file in a directory others may write could be swapped for another between its check
    /// and its reading (found by QA: raced at reload, an attacker's notify-command ran): the
    /// directory is refused, and so is the directory a link's target is in. A sticky
    /// directory of root's (/tmp) is not.
    @Test func aFileInADirectoryOthersMayWriteIsRefused() throws {
        let directory = NSTemporaryDirectory() + "lanchat-conf-\(UUID().uuidString)"
        let open = directory + "/open"
        let mine = directory + "/mine"
        for path in [open, mine] {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: true)
        }
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = open + "/lanchatd.conf"
        try Data("name = \"x\"\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(chmod(file, 0o600) == 0 && chmod(mine, 0o700) == 0)
        func load(_ path: String) throws(DaemonError) -> DaemonSettings {
            try ConfigurationFile.load(path: path, required: true, environment: [:])
        }
        #expect(chmod(open, 0o755) == 0)
        #expect(try load(file).name == "x")
        for mode: mode_t in [0o777, 0o757] {
            #expect(chmod(open, mode) == 0)
            do {
                _ = try load(file)
                Issue.record("read from a directory of mode \(String(mode, radix: 8))")
            } catch {
                #expect(error.exitCode == 78)
                #expect(error.description.contains("its directory \(open) is writable by others"))
            }
        }
        // A link from a private directory to a file in the open one: the target's counts.
        let link = mine + "/lanchatd.conf"
        #expect(symlink(file, link) == 0)
        #expect(throws: DaemonError.self) { try load(link) }
        // Sticky, and root's or ours: others cannot rename or remove our file there.
        #expect(chmod(open, 0o1777) == 0)
        #expect(try load(file).name == "x")
    }

    @Test func aDanglingLinkOrAFIFOIsNoConfigurationFile() throws {
        let directory = NSTemporaryDirectory() + "lanchat-conf-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let link = directory + "/link.conf"
        try FileManager.default.createSymbolicLink(
            atPath: link, withDestinationPath: directory + "/gone.conf")
        let fifo = directory + "/fifo.conf"
        #expect(mkfifo(fifo, 0o600) == 0)
        for (path, reason) in [
            (link, "cannot read: No such file or directory"),
            (fifo, "cannot read: not a regular file"),
        ] {
            do {
                _ = try ConfigurationFile.load(path: path, required: false, environment: [:])
                Issue.record("\(path) was taken")
            } catch {
                #expect(error.exitCode == 78)
                #expect(error.description == "\(path): \(reason)")
            }
        }
    }

    /// Bytes that are not UTF-8, and a NUL escape, would change a value silently (U+FFFD; a
    /// name cut short at the NUL): refused with their line, before anything is parsed.
    @Test func invalidUTF8AndNulEscapesAreRefusedWithTheirLine() throws {
        let bad: [UInt8] = Array("port = 7000\nname = \"caf".utf8) + [0xE9] + Array("\"\n".utf8)
        do {
            _ = try ConfigurationFile.utf8Text(bad, path: Self.path)
            Issue.record("a file that is not UTF-8 was read")
        } catch {
            #expect(error.exitCode == 78)
            #expect(error.description == "\(Self.path):2: not valid UTF-8 (a TOML file is UTF-8)")
        }
        for escape in ["\\u0000", "\\U00000000"] {
            let text = "# a comment\n\nname = \"a\(escape)b\"\n"
            do {
                _ = try ConfigurationFile.utf8Text(Array(text.utf8), path: Self.path)
                Issue.record("a NUL escape was read")
            } catch {
                #expect(error.description == "\(Self.path):3: NUL (\(escape)) is not allowed")
            }
        }
        #expect(
            try ConfigurationFile.utf8Text(Array("name = \"café\"".utf8), path: Self.path)
                == "name = \"café\"")
    }

    @Test func missingDefaultFileIsNoSettingsButMissingRequiredFileIsAnError() throws {
        let missing = NSTemporaryDirectory() + "lanchat-no-such-\(UUID().uuidString).conf"
        #expect(
            try ConfigurationFile.load(path: missing, required: false, environment: [:])
                == DaemonSettings())
        do {
            _ = try ConfigurationFile.load(path: missing, required: true, environment: [:])
            Issue.record("a missing --config file must be an error")
        } catch {
            #expect(error.exitCode == 78)
            #expect(error.description.contains(missing), "\(error)")
        }
    }

    @Test func defaultPathFollowsXDGConfigHome() {
        #expect(
            ConfigurationFile.defaultPath(environment: ["XDG_CONFIG_HOME": "/x", "HOME": "/h"])
                == "/x/lanchat/lanchatd.conf")
        #expect(
            ConfigurationFile.defaultPath(environment: ["HOME": "/h"])
                == "/h/.config/lanchat/lanchatd.conf")
    }

    /// With no usable HOME the file is under the account's home directory, and with no home
    /// at all there is none: never `/tmp/.config`, which any local user can write (found by
    /// QA: a file planted there named the node and ran its notify-command).
    @Test func noHomeMeansTheAccountsHomeOrNoFile() throws {
        let account = try #require(getpwuid(getuid())).pointee.pw_dir.map { String(cString: $0) }
        let expected = try #require(account) + "/.config/lanchat/lanchatd.conf"
        for environment in [[:], ["HOME": ""], ["HOME": "relative/x"]] {
            #expect(ConfigurationFile.defaultPath(environment: environment) == expected)
        }
        #expect(ConfigurationFile.defaultPath(environment: [:], uid: Self.uidWithNoAccount) == nil)
        #expect(
            ConfigurationFile.defaultPath(
                environment: ["XDG_CONFIG_HOME": "/x"], uid: Self.uidWithNoAccount)
                == "/x/lanchat/lanchatd.conf")
    }

    /// A user the password database does not know (a container's arbitrary uid).
    static let uidWithNoAccount: uid_t = 2_999_999

    /// No home and no --data-dir: the start is refused, saying what to give (it used to keep
    /// the identity and the store in /tmp/.local).
    @Test func noHomeAndNoDataDirectoryIsRefused() {
        let configuration = DaemonConfiguration.defaults(
            environment: ["XDG_RUNTIME_DIR": "/run/user/2999999"], uid: Self.uidWithNoAccount)
        #expect(configuration.dataDirectory == "")
        do {
            try configuration.validate()
            Issue.record("validated with no data directory")
        } catch {
            #expect(error.exitCode == 78)
            #expect(error.description.contains("give --data-dir"), "\(error)")
        }
        let withHome = DaemonConfiguration.defaults(environment: ["HOME": "/h"])
        #expect(withHome.dataDirectory == "/h/.local/share/lanchat")
    }

    @Test func commandLineWinsOverTheFileAndTheFileOverDefaults() throws {
        let file = try parse("name = \"from-file\"\nport = 7000\nlog-level = \"debug\"\n")
        var commandLine = DaemonSettings()
        commandLine.port = 7001
        let base = DaemonConfiguration(name: "default", dataDirectory: "/d", socketPath: "/s")
        let configuration = file.overlaid(by: commandLine).applied(to: base)
        #expect(configuration.name == "from-file")
        #expect(configuration.port == 7001)
        #expect(configuration.logLevel == .debug)
        #expect(configuration.dataDirectory == "/d")
    }
}

/// A configuration file another user may write through its access list (found by QA).
@Suite struct FileACLTests {
    /// `system.posix_acl_access` as the kernel stores it: version 2, then the entries.
    static func acl(_ entries: [(tag: UInt16, permissions: UInt16, id: UInt32)]) -> [UInt8] {
        var bytes: [UInt8] = [2, 0, 0, 0]
        for entry in entries {
            bytes += [UInt8(entry.tag & 0xFF), UInt8(entry.tag >> 8)]
            bytes += [UInt8(entry.permissions & 0xFF), UInt8(entry.permissions >> 8)]
            bytes += (0..<4).map { UInt8((entry.id >> (8 * UInt32($0))) & 0xFF) }
        }
        return bytes
    }

    @Test func aNamedEntryOfAnotherWhoMayWriteIsFound() {
        let base: [(tag: UInt16, permissions: UInt16, id: UInt32)] = [
            (0x01, 6, .max), (0x04, 4, .max), (0x20, 4, .max),
        ]
        func writer(_ extra: [(tag: UInt16, permissions: UInt16, id: UInt32)]) -> String? {
            FileACL.otherWriter(in: Self.acl(base + extra), uid: 1000, gid: 1000)
        }
        #expect(writer([]) == nil)
        #expect(writer([(0x02, 6, 2_999_998), (0x10, 6, .max)]) == "user 2999998")
        // The mask takes write away; our own uid and group are ours to give.
        #expect(writer([(0x02, 6, 2_999_998), (0x10, 4, .max)]) == nil)
        #expect(writer([(0x02, 6, 1000), (0x10, 6, .max)]) == nil)
        #expect(writer([(0x08, 2, 50), (0x10, 7, .max)]) == "group 50")
        #expect(writer([(0x08, 2, 1000), (0x10, 7, .max)]) == nil)
        // A file with no access list (its mode alone decides).
        #expect(FileACL.otherWriter(of: "/nonexistent/lanchatd.conf", uid: 0, gid: 0) == nil)
    }

    /// On a real file: its mode says 0660 of our own group, its access list lets another
    /// user write: refused (78), saying how to take the list away.
    @Test func aConfigurationFileAnotherUserMayWriteThroughItsListIsRefused() throws {
        let directory = NSTemporaryDirectory() + "lanchat-acl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(
            atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/lanchatd.conf"
        try Data("name = \"x\"\n".utf8).write(to: URL(fileURLWithPath: path))
        // A long list (past any small buffer), the writer last.
        let readers = (0..<100).map {
            (tag: UInt16(0x02), permissions: UInt16(4), id: UInt32(5_000 + $0))
        }
        let list = Self.acl(
            [(0x01, 6, .max)] + readers + [
                (0x02, 6, 2_999_998), (0x04, 4, .max), (0x10, 6, .max), (0x20, 0, .max),
            ])
        let set = list.withUnsafeBytes {
            setxattr(path, "system.posix_acl_access", $0.baseAddress, $0.count, 0)
        }
        // A file system without access lists: nothing to check here.
        guard set == 0 else { return }
        do {
            _ = try ConfigurationFile.load(path: path, required: true, environment: [:])
            Issue.record("read a file another user may write")
        } catch {
            #expect(error.exitCode == 78)
            #expect(error.description.contains("lets user 2999998 write it"), "\(error)")
        }
    }
}
