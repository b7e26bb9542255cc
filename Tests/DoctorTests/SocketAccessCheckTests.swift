@testable import App
import Foundation
import XCTest

#if canImport(Glibc)
import Glibc
#endif

/// Whether nginx's worker user reaches the socket, worked out from modes and owners: the
/// tests run as root, who would pass everywhere if the check just tried.
final class SocketAccessCheckTests: ScratchDirectoryTestCase {
    private var descriptor: Int32 = -1
    private var socketPath: String { scratch.file("run/pushgate.sock") }
    /// nobody, as the kernel sees it: in no group that owns anything here.
    private let nobody = UserIdentity(name: "nobody", uid: 65534, groups: [65534])

    override func setUpWithError() throws {
        try super.setUpWithError()
        try FileManager.default.createDirectory(atPath: scratch.file("run"), withIntermediateDirectories: true)
        chmod(scratch.file("run"), 0o755)
        descriptor = try DoctorFixtures.bindSocket(at: socketPath)
        chmod(socketPath, 0o666)
    }

    override func tearDown() {
        close(descriptor)
        super.tearDown()
    }

    func testAnOpenChainIsReachable() {
        let findings = SocketAccessCheck(socket: socketPath, worker: nobody).run()
        XCTAssertEqual(findings.map(\.verdict), [.ok], "\(findings)")
        XCTAssertTrue(findings[0].message.contains("nobody"), findings[0].message)
    }

    func testA0700DirectoryAboveTheSocketIsAProblemThatNamesIt() {
        chmod(scratch.file("run"), 0o700)
        let findings = SocketAccessCheck(socket: socketPath, worker: nobody).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem], "\(findings)")
        let message = findings[0].message
        XCTAssertTrue(message.contains("cannot pass through \(scratch.file("run")) (mode 0700"), message)
        XCTAssertTrue(message.contains("502"), message)
        XCTAssertTrue(message.contains("chmod o+x \(scratch.file("run"))"), message)
        // Root itself passes: the verdict is the worker's, not the caller's.
        let root = UserIdentity(name: "root", uid: 0, groups: [0])
        XCTAssertEqual(SocketAccessCheck(socket: socketPath, worker: root).run().map(\.verdict), [.ok])
    }

    func testSearchOnlyIsEnoughAndAClosedTopDirectoryIsFound() {
        chmod(scratch.file("run"), 0o711)
        XCTAssertEqual(SocketAccessCheck(socket: socketPath, worker: nobody).run().map(\.verdict), [.ok])
        chmod(scratch.path, 0o750)
        let findings = SocketAccessCheck(socket: socketPath, worker: nobody).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("cannot pass through \(scratch.path) "), findings[0].message)
    }

    func testTheGroupBitCountsForAMemberOnly() {
        // The systemd layout: /run/pushgate is 0750 root:pushgate-group, www-data a member.
        let group: gid_t = 4242
        chown(scratch.file("run"), 0, group)
        chmod(scratch.file("run"), 0o750)
        chown(socketPath, 0, group)
        chmod(socketPath, 0o660)
        let member = UserIdentity(name: "www-data", uid: 33, groups: [33, group])
        XCTAssertEqual(SocketAccessCheck(socket: socketPath, worker: member).run().map(\.verdict), [.ok])
        let outsider = UserIdentity(name: "www-data", uid: 33, groups: [33])
        // Neither the folder nor the socket lets it in: both are named.
        let findings = SocketAccessCheck(socket: socketPath, worker: outsider).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem, .problem])
        XCTAssertTrue(findings[0].message.contains("cannot pass through \(scratch.file("run")) (mode 0750"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("add www-data to group"), findings[0].message)
        XCTAssertTrue(findings[1].message.contains("may not connect to \(socketPath) (mode 0660"), findings[1].message)
    }

    func testASocketTheWorkerMayNotWriteIsAProblem() {
        chmod(socketPath, 0o600)
        let findings = SocketAccessCheck(socket: socketPath, worker: nobody).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("may not connect"), findings[0].message)
        XCTAssertTrue(findings[0].message.contains("PUSHGATE_SOCKET_GROUP"), findings[0].message)
    }

    func testNoSocketMeansServeIsNotRunning() {
        let missing = scratch.file("run/other.sock")
        let findings = SocketAccessCheck(socket: missing, worker: nobody).run()
        XCTAssertEqual(findings.map(\.verdict), [.problem])
        XCTAssertTrue(findings[0].message.contains("no socket at \(missing)"), findings[0].message)
        let plainFile = scratch.file("run/plain")
        FileManager.default.createFile(atPath: plainFile, contents: Data())
        XCTAssertTrue(SocketAccessCheck(socket: plainFile, worker: nobody).run()[0].message.contains("is not a socket"))
    }

    /// With systemd's pushgate.socket making the socket, its settings are what to change, and a
    /// missing socket is a unit not running.
    func testASocketUnitsSocketGetsTheUnitsAdvice() throws {
        let unitPath = scratch.file("pushgate.socket")
        try "[Socket]\nListenStream=\(socketPath)\nSocketMode=0660\n".write(toFile: unitPath, atomically: true, encoding: .utf8)
        let unit = try XCTUnwrap(SocketUnit.holding(socketPath, among: [scratch.file("absent.socket"), unitPath]))
        XCTAssertEqual(unit.path, unitPath)
        chmod(socketPath, 0o600)
        let closed = SocketAccessCheck(socket: socketPath, worker: nobody, socketUnit: unit).run()
        XCTAssertEqual(closed.map(\.verdict), [.problem])
        XCTAssertTrue(closed[0].message.contains("set SocketGroup= to a group nobody is in"), closed[0].message)
        XCTAssertTrue(closed[0].message.contains("`systemctl edit pushgate.socket`"), closed[0].message)
        XCTAssertFalse(closed[0].message.contains("PUSHGATE_SOCKET_GROUP"), closed[0].message)

        unlink(socketPath)
        let missing = SocketAccessCheck(socket: socketPath, worker: nobody, socketUnit: unit).run()
        XCTAssertEqual(
            missing.map(\.description),
            ["FAIL socket: no socket at \(socketPath): pushgate.socket (\(unitPath)) listens there but is not running: `systemctl enable --now pushgate.socket`"])
    }

    /// A unit counts only where it listens on this socket, drop-ins included, as systemd reads them.
    func testASocketUnitIsFoundOnlyWhereItListensOnTheSocket() throws {
        let unitPath = scratch.file("pushgate.socket")
        try "[Socket]\nListenStream=/run/elsewhere.sock\n".write(toFile: unitPath, atomically: true, encoding: .utf8)
        XCTAssertNil(SocketUnit.holding(socketPath, among: [unitPath]))
        // A drop-in that clears the list and names this socket moves the unit here.
        try FileManager.default.createDirectory(atPath: unitPath + ".d", withIntermediateDirectories: true)
        try "[Socket]\nListenStream=\nListenStream = \(socketPath)\n".write(
            toFile: unitPath + ".d/override.conf", atomically: true, encoding: .utf8)
        XCTAssertEqual(SocketUnit.holding(socketPath, among: [unitPath])?.path, unitPath)
        XCTAssertEqual(
            SocketUnit.listenStreams(in: ["ListenStream=/a\nListenStreamX=/b\n# ListenStream=/c", "ListenStream=/d/../e"]), ["/a", "/e"])

        // The unit of higher precedence (/etc's before /lib's) is the one systemd uses, whole;
        // `systemctl edit` writes its drop-in beside it, and that reaches the package's unit too.
        let etc = scratch.file("etc.socket"), lib = scratch.file("lib.socket")
        try "[Socket]\nListenStream=\(socketPath)\n".write(toFile: lib, atomically: true, encoding: .utf8)
        XCTAssertEqual(SocketUnit.holding(socketPath, among: [etc, lib])?.path, lib)
        try FileManager.default.createDirectory(atPath: etc + ".d", withIntermediateDirectories: true)
        try "[Socket]\nListenStream=\nListenStream=/run/moved.sock\n".write(
            toFile: etc + ".d/override.conf", atomically: true, encoding: .utf8)
        XCTAssertNil(SocketUnit.holding(socketPath, among: [etc, lib]), "the drop-in moved the package's unit")
        XCTAssertEqual(SocketUnit.holding("/run/moved.sock", among: [etc, lib])?.path, lib)
        try FileManager.default.removeItem(atPath: etc + ".d")
        try "[Socket]\nListenStream=/run/elsewhere.sock\n".write(toFile: etc, atomically: true, encoding: .utf8)
        XCTAssertNil(SocketUnit.holding(socketPath, among: [etc, lib]), "/etc's unit replaces /lib's whole")
        XCTAssertEqual(SocketUnit.holding("/run/elsewhere.sock", among: [etc, lib])?.path, etc)
        XCTAssertEqual(SocketUnit.listenStreams(in: ["ListenStream=/a", "ListenStream=", "ListenStream=127.0.0.1:9000"]), [])
    }

    func testOwnerBitsAloneDecideForTheOwner() {
        let user = UserIdentity(name: "u", uid: 1000, groups: [1000])
        // The kernel never falls through to the group or other bits for the owner.
        XCTAssertFalse(user.may(.search, mode: 0o077, owner: 1000, group: 1000))
        XCTAssertTrue(user.may(.search, mode: 0o100, owner: 1000, group: 0))
        XCTAssertFalse(user.may(.search, mode: 0o706, owner: 0, group: 1000))
        XCTAssertTrue(user.may(.write, mode: 0o002, owner: 0, group: 0))
        XCTAssertNotNil(UserIdentity(name: "root"))
        XCTAssertNil(UserIdentity(name: "no-such-user-here"))
    }
}
