extension UInt8 {
    /// An ASCII letter or digit: the alphabet of tokens, ids and names the dialects read.
    var isASCIIAlphanumeric: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
