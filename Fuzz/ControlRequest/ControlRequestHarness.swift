import FoundationEssentials
import LanChatControl
import LanChatFuzzSupport

/// A control request line decoded the way the daemon does it (ControlDispatcher, which lives
/// in LanChatDaemon and so is not linked here): `RPCRequestHead` first, then
/// `RPCRequestParams<P>` for the method, falling back to `P` from `{}` when params are
/// absent, all with `ControlJSON.decoder()`.
///
/// Input: up to 8 lines separated by `\n`, as the daemon's line decoder cuts them. Every line
/// is tried against every method's params (the fuzzer cannot know which method a line names).
/// Properties: decoding never traps; whatever params decode encode again as one line (no raw
/// newline) and decode back equal; the daemon's fast path (`JSONReader`) for `send` reads
/// exactly what `JSONDecoder` reads, and the client writes those params back byte for byte as
/// `JSONEncoder` does (`ControlJSONWritableParams`); every method's params go through the same validation the
/// daemon runs before it writes anything (`ParamsValidation.swift`: `send`, `presence`,
/// `history`; `ContactsValidation.swift`: `add`, `alias`, `verify`; `Groups.swift`: the `group.*` methods; `status`, `who`, `retry`, `typing`,
/// `contacts`, `block`, `unblock`, `remove` and `accept` have only types to check, and their handlers resolve
/// a PEER before writing), which answers bad params with `invalidParams` or `badInput` only and
/// lets through only values within the limits; the error response for any id is one line that
/// gives that id back; a line whose head `JSONReader` reads is not malformed (`JSONSyntax`,
/// which the daemon runs only on the others).
enum ControlRequestHarness {
    static func run(_ bytes: [UInt8]) {
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).prefix(8)
        for line in lines {
            respond(to: Data(line))
        }
    }

    static func respond(to line: Data) {
        let head: RPCRequestHead
        do {
            head = try ControlJSON.decoder().decode(RPCRequestHead.self, from: line)
        } catch {
            checkErrorResponse(id: nil, message: "the request is not valid JSON")
            return
        }
        checkErrorResponse(id: head.id, message: head.method ?? "")
        checkSyntax(line)
        roundTrip(NoParams.self, line)
        roundTrip(WhoParams.self, line)
        let send = roundTrip(SendParams.self, line) { $0.timeout.map { !$0.isFinite } ?? false }
        checkFastPath(line, slow: send)
        send.map(checkClientWriter)
        send.map(checkValidation)
        roundTrip(HistoryParams.self, line).map(checkValidation)
        roundTrip(PresenceParams.self, line).map(checkValidation)
        roundTrip(RetryParams.self, line)
        roundTrip(BackupParams.self, line)
        roundTrip(InboxParams.self, line)
        roundTrip(ReadParams.self, line)
        roundTrip(ArchiveParams.self, line)
        roundTrip(SearchParams.self, line)
        roundTrip(WatchParams.self, line)
        roundTrip(TypingParams.self, line)
        roundTrip(PeerParams.self, line)
        roundTrip(RemoveParams.self, line)
        roundTrip(AddParams.self, line).map(checkValidation)
        roundTrip(AliasParams.self, line).map(checkValidation)
        roundTrip(VerifyParams.self, line).map(checkValidation)
        roundTrip(GroupCreateParams.self, line).map(checkValidation)
        roundTrip(GroupMembersParams.self, line).map(checkValidation)
        roundTrip(GroupRenameParams.self, line).map(checkValidation)
        roundTrip(GroupParams.self, line).map(checkValidation)
    }

    /// `group.create`: an accepted name is 1 … 64 bytes, not only white space, without NUL;
    /// accepted members are 1 … 255 distinct PEER arguments (we are the 256th).
    static func checkValidation(_ params: GroupCreateParams) {
        do {
            try params.validate()
            checkGroupName(params.name)
            checkGroupPeers(params.peers)
        } catch {
            checkRefusal(error, "group.create")
        }
    }

    static func checkValidation(_ params: GroupMembersParams) {
        do {
            try params.validate()
            fuzzCheck(!params.group.isEmpty, "empty group accepted")
            checkGroupPeers(params.peers)
        } catch {
            checkRefusal(error, "group.add/remove")
        }
    }

    static func checkValidation(_ params: GroupRenameParams) {
        do {
            try params.validate()
            checkGroupName(params.name)
        } catch {
            checkRefusal(error, "group.rename")
        }
    }

    static func checkValidation(_ params: GroupParams) {
        do {
            try params.validate()
            fuzzCheck(!params.group.isEmpty, "empty group accepted")
        } catch {
            checkRefusal(error, "group.leave")
        }
    }

    static func checkGroupName(_ name: String) {
        fuzzCheck(
            !name.allSatisfy(\.isWhitespace) && name.utf8.count <= ParamsLimits.maxGroupNameBytes
                && !name.utf8.contains(0), "group name \(name.debugDescription) accepted")
    }

    static func checkGroupPeers(_ peers: [String]) {
        fuzzCheck(
            (1..<ParamsLimits.maxGroupMembers).contains(peers.count)
                && Set(peers).count == peers.count, "members \(peers) accepted")
    }

    /// `add`: an accepted id is 52 upper-case base32 characters, an accepted alias is 1 … 64
    /// bytes without control characters; refusals are bad input (exit 65).
    static func checkValidation(_ params: AddParams) {
        do {
            let (alias, id) = try params.validated()
            checkAlias(alias)
            fuzzCheck(
                id.utf8.count == ContactLimits.idLength
                    && id.utf8.allSatisfy {
                        (0x41...0x5A).contains($0) || (0x32...0x37).contains($0)
                    }, "id \(id.debugDescription) accepted")
        } catch {
            checkRefusal(error, "add", codes: [65])
        }
    }

    /// `alias`: exactly one of a valid name and `clear`.
    static func checkValidation(_ params: AliasParams) {
        do {
            if let alias = try params.validatedAlias() {
                fuzzCheck(params.clear != true, "alias and clear accepted together")
                checkAlias(alias)
            } else {
                fuzzCheck(params.clear == true && params.name == nil, "clear without clear")
            }
        } catch {
            checkRefusal(error, "alias")
        }
    }

    /// `verify`: an accepted number is exactly 60 ASCII digits.
    static func checkValidation(_ params: VerifyParams) {
        do {
            let number = try params.validatedNumber()
            fuzzCheck((number == nil) == (params.number == nil), "number dropped or invented")
            if let number {
                fuzzCheck(
                    number.utf8.count == ContactLimits.safetyNumberDigits
                        && number.utf8.allSatisfy { (0x30...0x39).contains($0) },
                    "safety number \(number.debugDescription) accepted")
            }
        } catch {
            checkRefusal(error, "verify", codes: [65])
        }
    }

    static func checkAlias(_ alias: String) {
        fuzzCheck(
            !alias.isEmpty && alias.utf8.count <= ContactLimits.maxAliasBytes
                && !alias.unicodeScalars.contains { $0.properties.generalCategory == .control },
            "alias \(alias.debugDescription) accepted")
    }

    /// `send` params as the daemon's fast path reads them: if it reads any, `JSONDecoder`
    /// reads the same.
    static func checkFastPath(_ line: Data, slow: SendParams?) {
        let fast = line.withUnsafeBytes { bytes in
            JSONReader.read(bytes) { RPCRequestParams<SendParams>(json: &$0) }
        }
        guard let fast = fast?.params else { return }
        fuzzCheck(fast == slow, "fast path read \(fast), JSONDecoder \(String(describing: slow))")
    }

    /// The daemon checks a line's syntax (`JSONSyntax`) only where `JSONReader` declined its
    /// head, trusting the reader to be as strict: a line it reads must not be malformed.
    static func checkSyntax(_ line: Data) {
        let outcome = line.withUnsafeBytes { JSONSyntax.check($0) }
        let fast = line.withUnsafeBytes { bytes in
            JSONReader.read(bytes) { RPCRequestHead(json: &$0) }
        }
        guard case .malformed(let why)? = outcome.fault else { return }
        fuzzCheck(fast == nil, "JSONReader read a head of a malformed line: \(why)")
    }

    /// `send` params as the client writes them: the bytes `JSONEncoder` writes, or nil where
    /// it throws (a timeout that is not finite).
    static func checkClientWriter(_ params: SendParams) {
        let request = RPCRequest(id: .number(1), method: "send", params: params)
        let written = request.writtenLine()
        let encoded = (try? ControlJSON.encoder().encode(request)).map { [UInt8]($0) }
        fuzzCheck(
            written == encoded,
            "the client wrote \(params) as \(written.map { String(decoding: $0, as: UTF8.self) } ?? "nil")"
        )
    }

    /// A refusal is a params error (exit 64) or bad input (exit 65), never anything else.
    static func checkRefusal(_ error: ControlError, _ what: String, codes: Set<Int32> = [64, 65]) {
        fuzzCheck(codes.contains(error.exitCode), "\(what) refused with \(error.rpcCode): \(error)")
    }

    static func checkValidation(_ params: SendParams) {
        do {
            let texts = try params.validatedTexts()
            fuzzCheck(
                texts == params.text.map { [$0] } ?? params.texts, "validated texts changed")
            fuzzCheck(
                (1...ParamsLimits.maxTextsPerRequest).contains(texts.count),
                "\(texts.count) texts accepted")
            for text in texts {
                fuzzCheck(
                    !text.allSatisfy(\.isWhitespace) && text.utf8.count <= ParamsLimits.maxTextBytes
                        && !text.utf8.contains(0),
                    "text \(text.debugDescription.prefix(80)) accepted")
            }
        } catch {
            checkRefusal(error, "send texts")
        }
        do {
            let seconds = try params.validatedWaitSeconds()
            let waits = params.wait == true || params.waitRead == true
            fuzzCheck((seconds != nil) == waits, "wait seconds \(String(describing: seconds))")
            if let seconds {
                fuzzCheck(
                    seconds.isFinite && seconds >= 0 && seconds <= ParamsLimits.maxTimeoutSeconds,
                    "timeout \(seconds) accepted")
            }
        } catch {
            checkRefusal(error, "send timeout", codes: [64])
        }
    }

    static func checkValidation(_ params: PresenceParams) {
        do {
            try params.validate()
            if let text = params.text {
                fuzzCheck(
                    text.utf8.count <= ParamsLimits.maxStatusTextBytes && !text.utf8.contains(0),
                    "status text \(text.debugDescription) accepted")
            }
        } catch {
            checkRefusal(error, "presence", codes: [65])
        }
    }

    static func checkValidation(_ params: HistoryParams) {
        do {
            let limit = try params.validatedLimit()
            fuzzCheck(ParamsLimits.historyLimits.contains(limit), "history limit \(limit) accepted")
            fuzzCheck(params.before == nil || params.after == nil, "before and after accepted")
        } catch {
            checkRefusal(error, "history", codes: [64])
        }
    }

    /// Decodes `P` as the dispatcher would; if that works, the value survives encoding.
    /// `unencodable` names values JSON cannot carry (a non-finite number), which the daemon
    /// rejects on use.
    @discardableResult
    static func roundTrip<P: Codable & Hashable>(
        _ type: P.Type, _ line: Data, unencodable: (P) -> Bool = { _ in false }
    ) -> P? {
        let decoder = ControlJSON.decoder()
        let params: P
        do {
            let envelope = try decoder.decode(RPCRequestParams<P>.self, from: line)
            if let given = envelope.params {
                params = given
            } else {
                params = try decoder.decode(P.self, from: Data("{}".utf8))
            }
        } catch {
            return nil
        }
        guard !unencodable(params) else { return params }
        do {
            let encoded = try ControlJSON.encoder().encode(params)
            fuzzCheck(!encoded.contains(0x0A), "\(P.self) encodes with a raw newline")
            let again = try decoder.decode(P.self, from: encoded)
            fuzzCheck(again == params, "\(P.self) \(params) came back as \(again)")
        } catch {
            FuzzFailure.report("\(P.self) \(params) does not survive encoding: \(error)")
        }
        return params
    }

    /// The daemon answers every line, even one it cannot read, with one line.
    static func checkErrorResponse(id: RPCID?, message: String) {
        let response = RPCResponse<NoParams>(id: id, error: .methodNotFound(message))
        do {
            let encoded = try ControlJSON.encoder().encode(response)
            fuzzCheck(!encoded.contains(0x0A), "an error response contains a raw newline")
            let decoded = try ControlJSON.decoder().decode(
                RPCResponse<NoParams>.self, from: encoded)
            fuzzCheck(
                decoded.id == id,
                "id \(String(describing: id)) came back as \(String(describing: decoded.id))")
        } catch {
            FuzzFailure.report(
                "the error response for id \(String(describing: id)) fails: \(error)")
        }
    }
}
