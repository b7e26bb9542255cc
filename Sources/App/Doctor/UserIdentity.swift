import Foundation

/// A user as the kernel checks file access for it: its uid, primary gid and supplementary
/// groups. Doctor runs as root, who passes everywhere; whether nginx's worker user may reach
/// the socket has to be worked out from modes and owners for that user, not by trying.
struct UserIdentity: Equatable {
    let name: String
    let uid: uid_t
    let groups: Set<gid_t>

    /// The access a file's mode grants this user: the owner's bits for its owner, the group's
    /// for a member of its group, the others' bits for everyone else (never a mix, as in the
    /// kernel). Root passes any directory and reads and writes anything.
    func may(_ access: Access, mode: mode_t, owner: uid_t, group: gid_t) -> Bool {
        if uid == 0 { return true }
        let bits: mode_t
        if owner == uid {
            bits = (mode >> 6) & 0o7
        } else if groups.contains(group) {
            bits = (mode >> 3) & 0o7
        } else {
            bits = mode & 0o7
        }
        return bits & access.rawValue == access.rawValue
    }

    enum Access: mode_t {
        case read = 4
        case write = 2
        case search = 1
    }

    static func name(of uid: uid_t) -> String {
        guard let entry = getpwuid(uid) else { return "uid \(uid)" }
        return String(cString: entry.pointee.pw_name)
    }

    static func groupName(of gid: gid_t) -> String {
        guard let entry = getgrgid(gid) else { return "gid \(gid)" }
        return String(cString: entry.pointee.gr_name)
    }
}

extension UserIdentity {
    /// The user from the password and group databases, or nil when there is no such user.
    init?(name: String) {
        guard let entry = getpwnam(name) else { return nil }
        let uid = entry.pointee.pw_uid
        let primary = entry.pointee.pw_gid
        var count: Int32 = 64
        var list = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(name, primary, &list, &count) < 0 {
            list = [gid_t](repeating: 0, count: Int(count))
            _ = getgrouplist(name, primary, &list, &count)
        }
        self.init(name: name, uid: uid, groups: Set(list.prefix(Int(max(count, 0)))).union([primary]))
    }
}
