import LanChatCore
import LanChatDiscovery
import Testing

/// When `announce` re-registers the service and when it only updates the TXT record, and how
/// a collision rename is carried over.
@Suite struct PublicationStateTests {
    static let advertisement = Advertisement(
        instanceName: "alice (ABCD-EFGH)", port: 4711, key: TestKeys.fixed(3), status: .available,
        statusText: "")

    static func published(_ advertisement: Advertisement = advertisement) -> PublicationState {
        var state = PublicationState()
        state.announce(advertisement)
        state.applied(advertisement)
        return state
    }

    @Test func nothingToDoBeforeTheFirstAnnounce() {
        #expect(PublicationState().nextStep() == .nothing)
    }

    @Test func firstAnnounceRegistersUnderTheInstanceName() {
        var state = PublicationState()
        state.announce(Self.advertisement)
        #expect(
            state.nextStep()
                == .register(name: "alice (ABCD-EFGH)", advertisement: Self.advertisement))
        state.applied(Self.advertisement)
        #expect(state.nextStep() == .nothing)
    }

    @Test func aNewStatusOnlyUpdatesTheTXTRecord() {
        var state = Self.published()
        var busy = Self.advertisement
        busy.status = .busy
        busy.statusText = "in a meeting"
        state.announce(busy)
        #expect(state.nextStep() == .updateTXT(name: "alice (ABCD-EFGH)", advertisement: busy))
    }

    @Test func aNewPortOrNameRegistersAgain() {
        var state = Self.published()
        var moved = Self.advertisement
        moved.port = 5000
        state.announce(moved)
        #expect(state.nextStep() == .register(name: "alice (ABCD-EFGH)", advertisement: moved))

        var renamed = Self.advertisement
        renamed.instanceName = "alice2 (ABCD-EFGH)"
        state.announce(renamed)
        #expect(state.nextStep() == .register(name: "alice2 (ABCD-EFGH)", advertisement: renamed))
    }

    @Test func aCollisionRegistersUnderTheAlternativeAndKeepsIt() {
        var state = Self.published()
        state.collided(renamedTo: "alice (ABCD-EFGH) #2")
        #expect(
            state.nextStep()
                == .register(name: "alice (ABCD-EFGH) #2", advertisement: Self.advertisement))
        state.applied(Self.advertisement)

        var away = Self.advertisement
        away.status = .away
        state.announce(away)
        #expect(state.nextStep() == .updateTXT(name: "alice (ABCD-EFGH) #2", advertisement: away))
        state.applied(away)

        var moved = away
        moved.port = 5000
        state.announce(moved)
        #expect(state.nextStep() == .register(name: "alice (ABCD-EFGH) #2", advertisement: moved))

        // A new display name starts from that name again.
        var renamed = moved
        renamed.instanceName = "alice@laptop (ABCD-EFGH)"
        state.announce(renamed)
        #expect(
            state.nextStep() == .register(name: "alice@laptop (ABCD-EFGH)", advertisement: renamed))
    }

    @Test func afterAWithdrawalTheServiceIsRegisteredAgain() {
        var state = Self.published()
        state.withdrawn()
        #expect(
            state.nextStep()
                == .register(name: "alice (ABCD-EFGH)", advertisement: Self.advertisement))
    }
}
