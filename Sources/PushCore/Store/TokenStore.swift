/// The whole store as one dialect-neutral interface.
public typealias TokenStore = AppCatalog & AcrobitsAccountStore & DeviceInventory
