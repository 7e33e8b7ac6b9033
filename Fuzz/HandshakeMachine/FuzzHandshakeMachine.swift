import LanChatFuzzSupport

/// libFuzzer entry point: a peer's bytes for the pure handshake state machine with the AEAD
/// left out, so msg2/msg3 payloads reach their parser (input layout in `MachineHarness`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHandshakeMachine(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    MachineHarness.run(FuzzInput(data, size).bytes)
    return 0
}

#if !LANCHAT_LIBFUZZER
    /// Without libFuzzer (the ordinary build): replay inputs from disk, or write the seeds.
    @main enum FuzzHandshakeMachineReplay {
        static func main() {
            FuzzReplay.main(seeds: MachineSeeds.all, harness: MachineHarness.run)
        }
    }
#endif
