import LanChatCore
import LanChatFuzzSupport

/// What a receiver must deliver for a sequence of authentic frames (PROTOCOL.md §4.2, §4.5):
/// each frame decoded by the written-out rules, DATA joined up to END within 1 MiB, nothing
/// after CLOSE, and nothing after the first error.
struct OpenerExpectation {
    var events: [ChannelEvent] = []
    /// The error of the first bad frame, if one of them is.
    var error: ChannelError?
    var closed = false

    init(_ frames: ArraySlice<SealedFrame>) {
        var reassembly = ReassemblyModel()
        for frame in frames {
            guard !closed else { return }
            switch FrameModel.decode(frame.plaintext, tag: frame.tag) {
            case .failure(let failure):
                error = failure
                return
            case .success(.data(let body, let end)):
                switch reassembly.append(body, end: end) {
                case .failure(let failure):
                    error = failure
                    return
                case .success(let message):
                    if let message { events.append(.message(message)) }
                }
            case .success(.ping(let body)): events.append(.ping(Array(body)))
            case .success(.pong(let body)): events.append(.pong(Array(body)))
            case .success(.close(let reason)):
                events.append(.close(reason))
                closed = true
            case .success(.rekey), .success(.ignored): break
            }
        }
    }
}
