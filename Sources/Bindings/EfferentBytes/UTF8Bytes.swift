/// A string's UTF-8 bytes read in place, for the core's writer and its canonical order: one copy
/// (a memcpy) or one loop over contiguous storage, where the checked `String.UTF8View` paths took a
/// retain, a generic copy or a call per string (a decade's encode writes and compares strings for
/// every one of its 29 million events). Pure Swift, no C library; inlinable, so each call compiles
/// to the bare loop at its caller.
public enum UTF8Bytes {
    /// Appends the UTF-8 of `text` to `bytes` in one copy.
    @inlinable
    public static func append(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends the UTF-8 of the literal `text` to `bytes` in one copy.
    @inlinable
    public static func append(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Whether any byte of `text`'s UTF-8 satisfies `test`.
    @inlinable
    public static func contains(_ text: String, where test: (UInt8) -> Bool) -> Bool {
        var text = text
        return text.withUTF8 { utf8 in utf8.contains(where: test) }
    }

    /// Whether `a` and `b` are the same UTF-8 bytes (not merely canonically equivalent, as `==`
    /// asks): one loop over contiguous storage, eight bytes at a time (native strings have it;
    /// small ones are copied to the stack), and the same storage answers at once.
    @inlinable
    public static func same(_ a: String, _ b: String) -> Bool {
        // Equal bits are one string: the same storage, or the same small string held inline (a
        // metric, unit or source from one literal or the catalogue, which is how most events of a
        // series share their names). A String is two words on every platform Swift runs on, so
        // the comparison reads exactly the value; unequal bits fall through to the bytes.
        if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
        let fast = a.utf8.withContiguousStorageIfAvailable { p in
            b.utf8.withContiguousStorageIfAvailable { q -> Bool in
                guard p.count == q.count else { return false }
                guard let x = p.baseAddress, let y = q.baseAddress, x != y else { return true }
                var i = 0
                while i + 8 <= p.count {
                    if UnsafeRawPointer(x + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(y + i).loadUnaligned(as: UInt64.self) {
                        return false
                    }
                    i += 8
                }
                while i < p.count {
                    if x[i] != y[i] { return false }
                    i += 1
                }
                return true
            }
        }
        return (fast ?? nil) ?? a.utf8.elementsEqual(b.utf8)
    }
}
