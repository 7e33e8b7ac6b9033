import FoundationEssentials

/// Newline-delimited JSON-RPC 2.0 framing shared by the daemon's control server and the
/// client. One request or response per line; lines are UTF-8 JSON objects without newlines
/// (JSONEncoder never emits a raw newline).

/// A JSON-RPC id: a number or a string (null ids are answered with null).
public enum RPCID: Codable, Sendable, Hashable {
    case number(Int64)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let number): try container.encode(number)
        case .string(let string): try container.encode(string)
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
