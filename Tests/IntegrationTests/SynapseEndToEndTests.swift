import Foundation
import PushTesting
import XCTest

/// `scripts/synapse-e2e`, run from the tests with the debug binaries they run beside: a real
/// Synapse pushes through pushgate to the mock APNs and Web Push service, and deletes the
/// pusher pushgate rejects. Opt-in, as it is slow and needs Synapse: it runs only when
/// `PUSHGATE_SYNAPSE_E2E=1` and Synapse is installed in the script's virtualenv
/// (`.build-synapse/venv`, or `SYNAPSE_E2E_VENV`; `scripts/synapse-e2e` installs it from PyPI
/// once), so that the test itself never reaches the internet. CI sets neither.
final class SynapseEndToEndTests: XCTestCase {
    func testSynapsesPushesGoThroughPushgateAndItsRejectionsDeleteThePusher() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["PUSHGATE_SYNAPSE_E2E"] == "1" else {
            throw XCTSkip("PUSHGATE_SYNAPSE_E2E is not 1: the Synapse end-to-end run is opt-in (slow, needs Synapse)")
        }
        let venv = environment["SYNAPSE_E2E_VENV"].map { URL(fileURLWithPath: $0) }
            ?? PushgateInstance.repository.appendingPathComponent(".build-synapse/venv")
        guard FileManager.default.isExecutableFile(atPath: venv.appendingPathComponent("bin/register_new_matrix_user").path) else {
            throw XCTSkip("no Synapse in \(venv.path): run scripts/synapse-e2e once to install it from PyPI")
        }

        let run = try RepositoryScript.run("synapse-e2e", environment: ["SYNAPSE_E2E_VENV": venv.path])
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("synapse-e2e: PASS"), run.output)
        XCTAssertFalse(run.output.contains("FAIL"), run.output)
        // Every check the script makes, by its PASS line: the delivery, the payload, the rejection.
        for check in [
            "the Web Push service received the message's push", "its room_id is the room's",
            "Synapse deleted the dead APNs pusher (pushgate rejected it)",
            "Synapse kept the live APNs and Web Push pushers", "pushgate answered every notify 200",
        ] {
            XCTAssertTrue(run.output.contains("PASS  \(check)") || run.output.contains("PASS    \(check)"), "\(check): \(run.output)")
        }
        let apns = try XCTUnwrap(
            run.output.split(separator: "\n").first { $0.contains("apns (production) stopping") }, run.output)
        XCTAssertTrue(apns.hasSuffix("requests 2 (200: 1, 410: 1), resets 0, goaways 0"), String(apns))
    }
}
