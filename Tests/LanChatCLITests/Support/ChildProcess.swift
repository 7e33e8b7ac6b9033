import LanChatTestSupport

/// Runs a program to completion, capturing its standard error (`RunningChild`).
enum ChildProcess {
    struct Outcome: Sendable {
        var status: Int32
        var standardError: String
    }

    static func run(_ arguments: [String]) async -> Outcome? {
        guard let child = RunningChild(arguments: arguments, capturing: 2) else { return nil }
        let standardError = await child.readToEnd()
        let status = await child.exitStatus()
        guard status != -2 else { return nil }
        return Outcome(
            status: status, standardError: String(decoding: standardError, as: UTF8.self))
    }
}
