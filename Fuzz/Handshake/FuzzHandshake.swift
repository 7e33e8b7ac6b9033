import LanChatFuzzSupport

/// libFuzzer entry point: bytes from a would-be initiator, read by a real responder
/// `ChannelHandshake` (input layout in `HandshakeHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHandshake(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    HandshakeHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzHandshakeReplay {
        static func main() {
            FuzzReplay.main(seeds: HandshakeSeeds.all, harness: HandshakeHarness.run)
        }
    }
#endif
