import FoundationEssentials

/// Newline-delimited JSON-RPC 2.0 framing shared by the daemon's control server and the
/// client. One request or response per line; lines are UTF-8 JSON objects without newlines
/// (JSONEncoder never emits a raw newline).

/// A JSON-RPC id: a number or a string (null ids are answered with null). JSON-RPC 2.0 allows
/// any number, so one that is not a whole number in Int64 (`1.5`, `1e-3`, `2^64`) is kept as
/// a `Decimal` and answered as the same number, never as null: a client that pipelines
/// matches answers by id. A `Decimal` holds 38 significant digits (more are rounded, beyond
/// what RFC 8259 §6 lets a JSON reader rely on) and magnitudes from 1e-128 to about 1e127;
/// an id out of that range does not decode, and the daemon answers it with `invalidRequest`.
public enum RPCID: Codable, Sendable, Hashable {
    case number(Int64)
    case string(String)
    case decimal(Decimal)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else if let string = try? container.decode(String.self) {
            self = .string(string)
        } else if let decimal = try? container.decode(Decimal.self), decimal.isFinite {
            self = .decimal(decimal)
        } else {
            throw DecodingError.typeMismatch(
                RPCID.self,
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription:
                        "an id is a string, a number of magnitude 1e-128 to below 1e128, or null"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
        case .decimal(let decimal): try container.encode(decimal)
        }
    }
}

/// What the daemon reads first from a request line: everything but the params.
public struct RPCRequestHead: Decodable, Sendable {
    public var jsonrpc: String?
    public var id: RPCID?
    public var method: String?
}

/// The params of a request line, decoded once the method is known.
public struct RPCRequestParams<Params: Decodable>: Decodable {
    public var params: Params?
}

public struct RPCRequest<Params: Encodable>: Encodable {
    public var jsonrpc = "2.0"
    public var id: RPCID
    public var method: String
    public var params: Params

    public init(id: RPCID, method: String, params: Params) {
        self.id = id
        self.method = method
        self.params = params
    }
}

public struct RPCErrorObject: Codable, Sendable, Hashable {
    public var code: Int
    public var message: String
    public var data: ControlErrorData?

    public init(_ error: ControlError) {
        code = error.rpcCode
        message = error.message
        data = error.data
    }

    public var controlError: ControlError {
        ControlError(rpcCode: code, message: message, data: data)
    }
}

/// A response line. Exactly one of `result` and `error` is present.
public struct RPCResponse<Result: Codable>: Codable {
    public var jsonrpc = "2.0"
    public var id: RPCID?
    public var apiVersion = ControlAPI.version
    public var result: Result?
    public var error: RPCErrorObject?

    public init(id: RPCID?, result: Result) {
        self.id = id
        self.result = result
    }

    public init(id: RPCID?, error: ControlError) {
        self.id = id
        self.error = RPCErrorObject(error)
    }

    enum CodingKeys: String, CodingKey { case jsonrpc, id, apiVersion, result, error }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(id, forKey: .id)
        try container.encode(apiVersion, forKey: .apiVersion)
        if let error {
            try container.encode(error, forKey: .error)
        } else {
            try container.encode(result, forKey: .result)
        }
    }
}

/// Encoders configured once for the control protocol: compact, keys sorted so output is
/// stable for golden tests and diffs.
public enum ControlJSON {
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    public static func prettyEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return encoder
    }

    public static func decoder() -> JSONDecoder { JSONDecoder() }
}
