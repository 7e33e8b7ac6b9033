import LanChatFuzzSupport

/// libFuzzer entry point: a byte stream for `FrameReader`, whose items then go through
/// `TransportFrame.decode` and the `Reassembler` (input layout in `WireFramesHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWireFrames(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    WireFramesHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzWireFramesReplay {
        static func main() {
            FuzzReplay.main(seeds: WireFramesSeeds.all, harness: WireFramesHarness.run)
        }
    }
#endif
