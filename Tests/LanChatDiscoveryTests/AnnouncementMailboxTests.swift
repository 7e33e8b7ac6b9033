import LanChatCore
import Testing

@testable import LanChatDiscovery

/// The mailbox that carries `announce` and `useInterfaces` (SIGHUP) to Avahi's poll thread.
@Suite struct AnnouncementMailboxTests {
    static let advertisement = Advertisement(
        instanceName: "a", port: 1, key: TestKeys.fixed(5), status: .available, statusText: "")

    @Test func anInterfaceListAndAnAdvertisementArriveTogetherAndOnce() throws {
        let mailbox = try AnnouncementMailbox()
        mailbox.post(interfaces: ["eth0"])
        mailbox.post(Self.advertisement)
        mailbox.post(interfaces: ["eth1", "wlan0"])
        let first = mailbox.take()
        #expect(first.interfaces == ["eth1", "wlan0"], "the newest list wins")
        #expect(first.advertisement == Self.advertisement)
        let second = mailbox.take()
        #expect(second.interfaces == nil)
        #expect(second.advertisement == nil)
    }

    /// An empty list means "every interface": it must arrive as a change, not as nothing.
    @Test func anEmptyInterfaceListIsDelivered() throws {
        let mailbox = try AnnouncementMailbox()
        mailbox.post(interfaces: [])
        #expect(mailbox.take().interfaces == [])
    }
}
