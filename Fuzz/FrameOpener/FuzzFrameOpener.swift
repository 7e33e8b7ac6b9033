import LanChatFuzzSupport

/// libFuzzer entry point: a program of frames to seal and stream damage to apply, run
/// against a real channel (input layout in `SealProgram`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFrameOpener(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FrameOpenerHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzFrameOpenerReplay {
        static func main() {
            FuzzReplay.main(seeds: FrameOpenerSeeds.all, harness: FrameOpenerHarness.run)
        }
    }
#endif
