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
/// newline) and decode back equal; the error response for any id is one line that gives that
/// id back.
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
        roundTrip(NoParams.self, line)
        roundTrip(WhoParams.self, line)
        roundTrip(SendParams.self, line) { $0.timeout.map { !$0.isFinite } ?? false }
        roundTrip(HistoryParams.self, line)
        roundTrip(PresenceParams.self, line)
        roundTrip(RetryParams.self, line)
        roundTrip(BackupParams.self, line)
    }

    /// Decodes `P` as the dispatcher would; if that works, the value survives encoding.
    /// `unencodable` names values JSON cannot carry (a non-finite number), which the daemon
    /// rejects on use.
    static func roundTrip<P: Codable & Hashable>(
        _ type: P.Type, _ line: Data, unencodable: (P) -> Bool = { _ in false }
    ) {
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
            return
        }
        guard !unencodable(params) else { return }
        do {
            let encoded = try ControlJSON.encoder().encode(params)
            fuzzCheck(!encoded.contains(0x0A), "\(P.self) encodes with a raw newline")
            let again = try decoder.decode(P.self, from: encoded)
            fuzzCheck(again == params, "\(P.self) \(params) came back as \(again)")
        } catch {
            FuzzFailure.report("\(P.self) \(params) does not survive encoding: \(error)")
        }
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
