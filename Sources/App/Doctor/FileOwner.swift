import Foundation

/// The owner of a file, by id and name.
struct FileOwner {
    let uid: uid_t
    let userName: String

    init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        uid = info.st_uid
        userName = UserIdentity.name(of: info.st_uid)
    }
}
