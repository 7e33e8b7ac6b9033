import Foundation
import LanChatCore

extension UInt64 {
    /// SQLite integers are signed 64-bit; u64 stream ids keep their bit pattern.
    var storedValue: Int64 { Int64(bitPattern: self) }
    init(stored: Int64) { self = UInt64(bitPattern: stored) }
}

extension PeerKey {
    var blob: Data { Data(bytes) }
}

extension MessageID {
    var blob: Data { Data(bytes) }
}
