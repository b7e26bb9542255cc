import PushCore

/// Every store protocol pushgate has, in one place: what each engine's store is, and what a
/// command or a responder thread gets. A protocol added for a new dialect or service is
/// added here, and both engines must then provide it.
public typealias PushgateStore = TokenStore & BeamsStore & BeamsDeviceStore & BeamsTokenSecretStore & DevicePruning & DeviceDeliveryRecord
    & BridgeSubscriptionStore & CospaceUserStore & AcrobitsPushDirectory & OutboxStore & ProviderTokenArchive
    & SenderKeyStore & OperationsStatusStore & HousekeepingStore
