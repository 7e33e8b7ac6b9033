import FoundationEssentials
import LanChatControl

/// Seeds: one request per method as the client encodes it (`RPCRequest` with
/// `ControlJSON.encoder()`), the malformed lines the envelope tests answer, and timestamps:
/// RFC 3339 texts with offsets and fractions, and edge millisecond values as 8 raw bytes.
enum ControlRequestSeeds {
    static func request<P: Encodable>(_ method: String, _ params: P, id: RPCID = .number(1))
        -> [UInt8]
    {
        let encoded = try? ControlJSON.encoder().encode(
            RPCRequest(id: id, method: method, params: params))
        return encoded.map { Array($0) } ?? []
    }

    static func milliseconds(_ value: Int64) -> [UInt8] {
        (0..<8).map {
            UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * UInt64($0)))
        }
    }

    static func all() -> [(name: String, bytes: [UInt8])] {
        let id = "b2f0b8f4-4bb3-4a4e-9d8f-2c1f5d0a7e61"
        var seeds: [(String, [UInt8])] = [
            ("status", request(Methods.Status.name, NoParams())),
            (
                "who",
                request(Methods.Who.name, WhoParams(query: "ali", all: true), id: .string("w"))
            ),
            (
                "send",
                request(
                    Methods.Send.name,
                    SendParams(peer: "alice", text: "hi ✓", wait: true, timeout: 2.5))
            ),
            (
                "send-lines",
                request(Methods.Send.name, SendParams(peer: "3EBM-VERF", texts: ["a", "b\nc"]))
            ),
            (
                "send-ids-only",
                request(
                    Methods.Send.name, SendParams(peer: "bob", texts: ["a", "b"], idsOnly: true))
            ),
            (
                "history",
                request(Methods.History.name, HistoryParams(peer: "bob", limit: 50, before: id))
            ),
            (
                "presence",
                request(Methods.SetPresence.name, PresenceParams(status: .busy, text: ""))
            ),
            ("retry", request(Methods.Retry.name, RetryParams(target: id))),
            ("inbox", request(Methods.Inbox.name, InboxParams(query: "bo", archived: true))),
            ("read", request(Methods.Read.name, ReadParams(peer: "bob"))),
            (
                "read-span",
                request(Methods.Read.name, ReadParams(peer: "bob", from: id, through: id))
            ),
            ("archive", request(Methods.Archive.name, ArchiveParams(peer: "bob"))),
            ("unarchive", request(Methods.Unarchive.name, ArchiveParams(peer: "bob"))),
            (
                "group-create",
                request(
                    Methods.GroupCreate.name,
                    GroupCreateParams(name: "ops", peers: ["bob", "carol"]))
            ),
            (
                "group-add",
                request(Methods.GroupAdd.name, GroupMembersParams(group: "#ops", peers: ["dave"]))
            ),
            (
                "group-remove",
                request(Methods.GroupRemove.name, GroupMembersParams(group: "ops", peers: ["bob"]))
            ),
            (
                "group-rename",
                request(Methods.GroupRename.name, GroupRenameParams(group: "ops", name: "ops-2"))
            ),
            ("group-leave", request(Methods.GroupLeave.name, GroupParams(group: "ops"))),
            ("groups", request(Methods.Groups.name, NoParams())),
            (
                "search",
                request(Methods.Search.name, SearchParams(text: "dep* \"is green\"", limit: 5))
            ),
            ("watch", request(Methods.Watch.name, WatchParams(peer: "bob", since: "c42"))),
            ("contacts", request(Methods.Contacts.name, NoParams())),
            (
                "add",
                request(
                    Methods.Add.name,
                    AddParams(
                        name: "carol", id: "PNHJBG56P77EJRDFUIQAG7LAR3RVRF6TD34XF4D7OSESZMHXH4JQ"))
            ),
            ("alias", request(Methods.Alias.name, AliasParams(peer: "bob", name: "Bobby"))),
            ("alias-clear", request(Methods.Alias.name, AliasParams(peer: "bob", clear: true))),
            ("verify", request(Methods.Verify.name, VerifyParams(peer: "3EBM-VERF"))),
            (
                "verify-number",
                request(
                    Methods.Verify.name,
                    VerifyParams(
                        peer: "bob",
                        number:
                            "70211 28878 91429 23862 92742 56558 90647 36537 89653 28314 69873 92838"
                    ))
            ),
            (
                "verify-link",
                request(Methods.Verify.name, VerifyParams(peer: "3EBM-VERF", link: true))
            ),
            ("block", request(Methods.Block.name, PeerParams(peer: "bob"))),
            ("unblock", request(Methods.Unblock.name, PeerParams(peer: "bob"))),
            ("remove", request(Methods.Remove.name, RemoveParams(peer: "bob", purge: true))),
            ("accept", request(Methods.Accept.name, PeerParams(peer: "bob"))),
            ("bad-add-id", request(Methods.Add.name, AddParams(name: "x", id: "PNHJ0G56"))),
            (
                "bad-alias-both",
                request(Methods.Alias.name, AliasParams(peer: "bob", name: "b", clear: true))
            ),
            (
                "bad-verify",
                request(Methods.Verify.name, VerifyParams(peer: "bob", number: "1 2 x"))
            ),
            ("typing", request(Methods.Typing.name, TypingParams(peer: "bob", typing: true))),
            // Params each refused by validation before the daemon writes anything.
            (
                "bad-send-nul",
                request(Methods.Send.name, SendParams(peer: "bob", texts: ["ok", "a\u{0}b"]))
            ),
            (
                "bad-send-timeout",
                request(
                    Methods.Send.name,
                    SendParams(peer: "bob", text: "hi", wait: true, timeout: -5))
            ),
            (
                "bad-history-range",
                request(
                    Methods.History.name,
                    HistoryParams(peer: "bob", limit: 0, before: id, after: id))
            ),
            (
                "bad-presence-text",
                request(
                    Methods.SetPresence.name,
                    PresenceParams(status: .away, text: String(repeating: "z", count: 129)))
            ),
            (
                "backup",
                request(Methods.Backup.name, BackupParams(path: "/home/alice/lanchat backup.db"))
            ),
            ("backup-relative", request(Methods.Backup.name, BackupParams(path: "b.db"))),
            (
                "two-lines",
                request(Methods.Status.name, NoParams()) + [0x0A]
                    + request(Methods.Retry.name, RetryParams())
            ),
            ("no-params", Array(#"{"jsonrpc":"2.0","id":7,"method":"who"}"#.utf8)),
            (
                "null-params",
                Array(#"{"jsonrpc":"2.0","id":null,"method":"status","params":null}"#.utf8)
            ),
            // Ids that are numbers but not Int64: answered by the same number (`.decimal`).
            (
                "decimal-ids",
                Array(
                    (#"{"jsonrpc":"2.0","id":1.5,"method":"status"}"# + "\n"
                        + #"{"jsonrpc":"2.0","id":18446744073709551616,"method":"watch"}"#
                        + "\n" + #"{"jsonrpc":"2.0","id":-1e-7,"method":"who"}"#).utf8)
            ),
            ("bad-json", Array(#"{"jsonrpc":"2.0","id":1,"method":"#.utf8)),
            // Malformed strings JSONDecoder reads past: a raw tab, an unknown escape.
            (
                "bad-raw-control",
                Array(
                    (#"{"jsonrpc":"2.0","id":1,"method":"send","params":{"peer":"a","text":"a"#
                        + "\t" + #"b"}}"# + "\n"
                        + #"{"jsonrpc":"2.0","id":2,"method":"who","params":{"query":"\q"}}"#)
                        .utf8)
            ),
            ("bad-not-object", Array("[1,2,3]".utf8)),
            ("bad-version", Array(#"{"jsonrpc":"1.0","id":1,"method":"status"}"#.utf8)),
            (
                "bad-params-type",
                Array(
                    #"{"jsonrpc":"2.0","id":1,"method":"history","params":{"peer":1,"limit":"x"}}"#
                        .utf8)
            ),
            (
                "bad-number-range",
                Array(
                    #"{"jsonrpc":"2.0","id":1e400,"method":"send","params":{"peer":"a","text":"b","timeout":1e999}}"#
                        .utf8)
            ),
            (
                "bad-unicode",
                Array(
                    #"{"jsonrpc":"2.0","id":"\ud800","method":"who","params":{"query":"\u0000\n"}}"#
                        .utf8)
            ),
            ("time-utc", Array("2026-11-21T06:15:16.018Z".utf8)),
            ("time-offset", Array("2026-11-21t07:15:16.0181234+01:00".utf8)),
            ("time-leap-second", Array("2016-12-31T23:59:60Z".utf8)),
            ("time-year-0", Array("0000-01-01T00:00:00-23:59".utf8)),
            ("time-year-9999", Array("9999-12-31T23:59:59.999Z".utf8)),
            ("ms-zero", milliseconds(0)),
            ("ms-minus-one", milliseconds(-1)),
            ("ms-max", milliseconds(.max)),
            ("ms-year-10000", milliseconds(253_402_300_800_000)),
        ]
        seeds = seeds.filter { !$0.1.isEmpty }
        return seeds.map { (name: "seed-" + $0.0, bytes: $0.1) }
    }
}
