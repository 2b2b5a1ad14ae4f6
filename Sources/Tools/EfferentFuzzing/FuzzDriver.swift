#if EFFERENT_FUZZ
/// libFuzzer's own driver (`LLVMFuzzerRunDriver`, LLVM ≥ 11), declared here because SwiftPM gives
/// every executable its own `main`, so libFuzzer's `main` cannot be the entry point.
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt
) -> CInt

public enum FuzzDriver {
    public static func run(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>,
                           _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> CInt) -> CInt {
        var count = argc
        var vector = argv
        return LLVMFuzzerRunDriver(&count, &vector, callback)
    }
}
#endif
