import LanChatFuzzSupport

/// libFuzzer entry point: one application message payload (PROTOCOL.md §9.1) per input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzAppCodec(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    AppCodecHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzAppCodecReplay {
        static func main() {
            FuzzReplay.main(seeds: AppCodecSeeds.all, harness: AppCodecHarness.run)
        }
    }
#endif
