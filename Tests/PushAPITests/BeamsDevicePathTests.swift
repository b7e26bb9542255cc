import Logging
import PushCore
import XCTest

@testable import PushAPI

/// The device API's paths as its routes read them: a named route's parameters become the
/// resource (the two empty last segments too), and what no named route takes is refused with
/// the text the SDKs' users see.
final class BeamsDevicePathTests: XCTestCase {
    /// A handler that answers nothing: the test reads which route took a path.
    private struct Probe: DialectHandler {
        let shape: BeamsDevicePath.Shape?
        func respond(to request: Request, context: RequestContext) throws -> Response { .emptyOK }
    }

    private let routes = BeamsDevicePath.routes { Probe(shape: $0) }

    /// What a path was read as.
    private struct Read: Equatable {
        let instance: String
        let platform: Platform?
        let resource: BeamsDevicePath.Resource
    }

    private func read(_ path: String) -> Result<Read, BeamsError> {
        let match = Router(routes: routes).match(path)
        guard let index = match.index else { return .failure(.notFound("no route")) }
        let shape = (routes[index].handler as? Probe)?.shape
        return Result { () throws(BeamsError) in
            guard let shape else { try BeamsDevicePath.refuse(unmatched: path) }
            let read = try BeamsDevicePath(shape, match.parameters)
            return Read(instance: read.instanceID, platform: read.platform, resource: read.resource)
        }
    }

    private func path(
        _ instance: String, _ platform: Platform?, _ resource: BeamsDevicePath.Resource
    ) -> Result<Read, BeamsError> {
        .success(Read(instance: instance, platform: platform, resource: resource))
    }

    func testEveryResourceUnderBothPrefixes() {
        for prefix in ["/device_api/v1/instances", "/instances"] {
            let apns = prefix + "/inst%20a/devices/apns"
            let expected: [(String, Result<Read, BeamsError>)] = [
                (prefix + "/inst/web-vapid-public-key", path("inst", nil, .vapidPublicKey)),
                (apns, path("inst a", .apns, .devices)),
                (prefix + "/inst/devices/fcm/abc-1", path("inst", .fcm, .device(id: "abc-1"))),
                (prefix + "/inst/devices/web/a%2Bb", path("inst", .web, .device(id: nil))),
                (prefix + "/inst/devices/web/", path("inst", .web, .device(id: nil))),
                (apns + "/abc/token", path("inst a", .apns, .token(id: "abc"))),
                (apns + "/abc/metadata", path("inst a", .apns, .metadata(id: "abc"))),
                (apns + "/abc/user", path("inst a", .apns, .user(id: "abc"))),
                (apns + "/abc/interests", path("inst a", .apns, .interests(id: "abc"))),
                (apns + "/abc/interests/a%40b", path("inst a", .apns, .interest(id: "abc", name: "a@b"))),
                (apns + "/abc/interests/", path("inst a", .apns, .interest(id: "abc", name: ""))),
            ]
            for (path, resource) in expected {
                XCTAssertEqual(read(path), resource, path)
            }
        }
    }

    /// The ids the client and device APIs take as possibly this server's: what it issues, and
    /// nothing that could not be.
    func testAnIdThisServerCouldHaveIssued() throws {
        let issued = try RandomIdentifier(randomBytes: { [UInt8](repeating: 0xAB, count: $0) }).uuid()
        for id in [issued, issued.uppercased(), "abc-1", String(repeating: "a", count: 64)] {
            XCTAssertTrue(RandomIdentifier.couldBeIssued(id), id)
        }
        for id in ["", "a+b", "bad!id", "a_b", "é", String(repeating: "a", count: 65)] {
            XCTAssertFalse(RandomIdentifier.couldBeIssued(id), id)
        }
    }

    func testWhatNamesNoResourceIsRefusedWithWhatIsWrong() {
        let serves = BeamsError.notFound(
            "No such resource: the device API serves /device_api/v1/instances/<instance id>/….")
        let noResource = BeamsError.notFound("No such resource.")
        let noDevice = BeamsError.notFound("Could not find the device.")
        let platforms = BeamsError.notFound("No such resource: the device platforms are apns, fcm and web.")
        let encoding = BeamsError.invalidField("The path is not validly percent-encoded.")
        let apns = "/device_api/v1/instances/inst/devices/apns"
        let expected: [(String, BeamsError)] = [
            ("/device_api", serves), ("/device_api/v2/instances/inst/devices/apns", serves), ("/instances", serves),
            ("/device_api/v1/instances", serves), ("/device_api/v1/instances/", .instanceNotFound),
            ("/instances/inst", noResource), ("/instances/inst/", noResource),
            ("/instances/inst/nothing-here", noResource),
            ("/instances/inst/web-vapid-public-key/", noResource), ("/instances/inst/devices", noResource),
            ("/instances/inst/devices/gcm", platforms), ("/instances/inst/devices/gcm/abc/token", platforms),
            (apns + "/bad!id/token", noDevice), (apns + "/bad!id/interests/x", noDevice),
            (apns + "/bad!id/nothing", noDevice),
            (apns + "/abc/nothing", noResource), (apns + "/bad!id/token/x", noResource),
            (apns + "/abc/interests/a/b", noResource), (apns + "/abc/%zz", encoding), (apns + "/%zz", encoding),
            ("/instances/%zz/devices/apns", encoding), ("/instances/%zz/nothing", encoding),
        ]
        for (path, error) in expected {
            XCTAssertEqual(read(path), .failure(error), path)
        }
    }
}
