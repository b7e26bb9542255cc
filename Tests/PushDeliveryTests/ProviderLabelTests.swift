import PushCore
import PushTesting
import XCTest

@testable import PushDelivery

/// A push's `provider` label: the platform of the app it carries, or of the catalog's app.
final class ProviderLabelTests: XCTestCase {
    private let store = InMemoryTokenStore()

    func testTheAppAPushCarriesNamesItsProviderWithoutALookup() throws {
        try store.addApp(Fixtures.fcmApp(), replacing: false)
        let catalog = CountingCatalog(store)
        let label = ProviderLabel(catalog: catalog)

        let carried = PushCore.Notification(app: Fixtures.apnsTokenApp(), token: Fixtures.apnsToken)
        XCTAssertEqual(label.of(carried), "apns")
        XCTAssertEqual(catalog.platformsRead, [], "the carried app was not looked up")

        XCTAssertEqual(label.of(Fixtures.fcmPush()), "fcm")
        XCTAssertEqual(label.of(Fixtures.apnsPush(app: "com.example.nowhere")), "unknown")
        XCTAssertEqual(
            catalog.platformsRead, [AppID("com.example.android")!, AppID("com.example.nowhere")!],
            "a push that names its app only (the outbox's) is looked up")
    }
}
