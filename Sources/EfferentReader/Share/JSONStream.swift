import EfferentCore

/// JSON written as it goes, member by member, for Bundles too large to build as values first
/// (a year of readings is hundreds of thousands of resources). It keeps only which containers
/// are open and whether each has a member yet, so commas fall where they should.
struct JSONStream {
    private(set) var writer: JSONWriter
    private var needsComma: [Bool] = []

    /// `elements`: what is written is a run of array elements, comma-separated, without the
    /// brackets (another stream's array takes them whole).
    init(reservingCapacity capacity: Int = 1 << 16, elements: Bool = false) {
        writer = JSONWriter(reservingCapacity: capacity)
        if elements { needsComma = [false] }
    }

    var bytes: [UInt8] { writer.bytes }
    var count: Int { writer.bytes.count }

    private mutating func separate() {
        guard let last = needsComma.last else { return }
        if last { writer.raw(byte: UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    /// Set between a key and its value: the value is no member of its own and takes no comma.
    private var valueFollowsKey = false

    /// `"name":` inside an object; the value follows.
    mutating func key(_ name: StaticString) {
        separate()
        writer.raw("\"")
        writer.raw(name)
        writer.raw("\":")
        valueFollowsKey = true
    }

    private mutating func beginValue() {
        if valueFollowsKey { valueFollowsKey = false } else { separate() }
    }

    mutating func object(_ body: (inout JSONStream) -> Void) { container("{", "}", body) }

    mutating func array(_ body: (inout JSONStream) -> Void) { container("[", "]", body) }

    private mutating func container(_ open: Unicode.Scalar, _ close: Unicode.Scalar, _ body: (inout JSONStream) -> Void) {
        beginValue()
        writer.raw(byte: UInt8(ascii: open))
        needsComma.append(false)
        body(&self)
        needsComma.removeLast()
        writer.raw(byte: UInt8(ascii: close))
    }

    mutating func string(_ text: String) {
        beginValue()
        writer.string(text)
    }

    mutating func bool(_ value: Bool) {
        beginValue()
        writer.raw(value ? "true" : "false")
    }

    /// A number as its JSON text (already written: `DecimalShift`).
    mutating func number(text: String) {
        beginValue()
        writer.raw(contentsOf: text.utf8)
    }

    /// Elements another stream wrote (`elements: true`), as members of the array open here.
    mutating func elements(of other: JSONStream) {
        guard other.count > 0 else { return }
        beginValue()
        writer.raw(contentsOf: other.bytes)
    }

    mutating func integer(_ value: Int) {
        beginValue()
        writer.integer(Int64(value))
    }

    // Shorthands for members.
    mutating func member(_ name: StaticString, _ text: String) { key(name); string(text) }
    mutating func member(_ name: StaticString, number text: String) { key(name); number(text: text) }
    mutating func object(_ name: StaticString, _ body: (inout JSONStream) -> Void) { key(name); object(body) }
    mutating func array(_ name: StaticString, _ body: (inout JSONStream) -> Void) { key(name); array(body) }
}
