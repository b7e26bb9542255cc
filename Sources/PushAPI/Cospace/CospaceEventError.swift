/// Why an event from the command line was refused, in the words the HTTP API uses.
public struct CospaceEventError: Error, CustomStringConvertible {
    public let description: String
}
