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
        // unsafe: libFuzzer's C entry (argc/argv and the input as a pointer and a length); the one
        // place the fuzz targets meet pointers, named in documents/design.md.
        var count = argc
        var vector = unsafe argv
        return unsafe LLVMFuzzerRunDriver(&count, &vector, callback)
    }
}
#endif
