/// A set of file descriptors as a bitmap: a descriptor is a small number the kernel hands out
/// lowest first, so a bit per number is a set whose insert and remove are a shift and a mask,
/// where a hashed `Set<Int32>` hashed on every request to park and take back its connection.
struct DescriptorSet {
    private var words: [UInt64] = []

    mutating func insert(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        let (word, bit) = Self.place(descriptor)
        if word >= words.count { words += repeatElement(0, count: word + 1 - words.count) }
        words[word] |= bit
    }

    mutating func remove(_ descriptor: Int32) {
        guard descriptor >= 0 else { return }
        let (word, bit) = Self.place(descriptor)
        guard word < words.count else { return }
        words[word] &= ~bit
    }

    func contains(_ descriptor: Int32) -> Bool {
        guard descriptor >= 0 else { return false }
        let (word, bit) = Self.place(descriptor)
        return word < words.count && words[word] & bit != 0
    }

    /// Every descriptor in the set, lowest first.
    var descriptors: [Int32] {
        var all: [Int32] = []
        for (index, word) in words.enumerated() where word != 0 {
            for bit in 0..<64 where word & (1 << UInt64(bit)) != 0 { all.append(Int32(index * 64 + bit)) }
        }
        return all
    }

    private static func place(_ descriptor: Int32) -> (word: Int, bit: UInt64) {
        (Int(descriptor) >> 6, 1 << UInt64(descriptor & 63))
    }
}
