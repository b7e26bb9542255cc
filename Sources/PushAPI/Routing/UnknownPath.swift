import Logging
import PushCore

/// A dialect's `{path...}` route: a path under the dialect's prefix that names none of its
/// endpoints, refused in the dialect's shape with what `refusal` throws.
public struct UnknownPath: DialectHandler {
    private let refusal: @Sendable (Request) throws -> Never

    public init(refusal: @escaping @Sendable (Request) throws -> Never) { self.refusal = refusal }

    public func respond(to request: Request, context: RequestContext) throws -> Response {
        try refusal(request)
    }
}
