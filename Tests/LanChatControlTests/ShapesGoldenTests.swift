import LanChatControl
import Testing

/// The stable JSON shapes of PRODUCT.md §4: every field present, `null` where it does not
/// apply, enum values spelled as documented.
@Suite struct ShapesGoldenTests {
    @Test func peerWithEveryField() throws {
        try GoldenJSON.expectRoundTrip(Fixtures.bob, Fixtures.bobJSON)
    }

    @Test func peerKeepsNullFieldsAndEmptyLists() throws {
        try GoldenJSON.expectRoundTrip(Fixtures.stranger, Fixtures.strangerJSON)
    }

    @Test func outgoingMessage() throws {
        try GoldenJSON.expectRoundTrip(Fixtures.outgoing, Fixtures.outgoingJSON)
    }

    @Test func incomingMessageWithEscapesAndLargestSeq() throws {
        try GoldenJSON.expectRoundTrip(Fixtures.incoming, Fixtures.incomingJSON)
    }

    @Test func failedMessageCarriesItsReason() throws {
        try GoldenJSON.expectRoundTrip(Fixtures.failed, Fixtures.failedJSON)
    }

    /// A preview (`lastMessage`, `firstMessage`): the text cut at a character's end within
    /// the byte limit, and `truncated` true; a short message is left whole, with no key.
    @Test func aPreviewIsCutAtACharacterAndSaysSo() throws {
        var long = Fixtures.incoming
        long.text = "é🐉ab"
        #expect(long.preview(maxBytes: 100) == long)
        let cut = long.preview(maxBytes: 5)
        #expect(cut.text == "é" && cut.truncated == true)
        #expect(long.preview(maxBytes: 6).text == "é🐉")
        let golden =
            String(Fixtures.incomingJSON.dropLast(#""text":"line 1\nline \"2\" \\ é"}"#.count))
            + #""text":"é","truncated":true}"#
        try GoldenJSON.expectRoundTrip(cut, golden)
        #expect(try !GoldenJSON.encode(Fixtures.incoming).contains("truncated"))
    }

    @Test func conversation() throws {
        let conversation = ConversationInfo(
            peer: Fixtures.stranger, unread: 2, lastMessage: Fixtures.incoming, archived: false,
            updatedAt: Fixtures.t1)
        let golden =
            #"{"archived":false,"group":null,"lastMessage":\#(Fixtures.incomingJSON),"#
            + #""peer":\#(Fixtures.strangerJSON),"unread":2,"updatedAt":"2026-11-21T06:29:49.000Z"}"#
        try GoldenJSON.expectRoundTrip(conversation, golden)
    }

    @Test func conversationWithoutMessagesHasNullLastMessage() throws {
        let conversation = ConversationInfo(
            peer: Fixtures.stranger, unread: 0, lastMessage: nil, archived: true,
            updatedAt: Fixtures.t0)
        let golden =
            #"{"archived":true,"group":null,"lastMessage":null,"peer":\#(Fixtures.strangerJSON),"#
            + #""unread":0,"#
            + #""updatedAt":"2026-11-21T06:29:48.123Z"}"#
        try GoldenJSON.expectRoundTrip(conversation, golden)
    }

    @Test func enumsAreSpelledAsDocumented() throws {
        #expect(Presence.allCases.map(\.rawValue) == ["online", "offline", "discovering"])
        #expect(Availability.allCases.map(\.rawValue) == ["available", "away", "busy"])
        #expect(Trust.allCases.map(\.rawValue) == ["unverified", "verified", "blocked"])
        #expect(
            MessageStatus.allCases.map(\.rawValue) == [
                "queued", "sent", "delivered", "read", "failed",
            ])
        #expect(try GoldenJSON.encode([MessageDirection.incoming, .outgoing]) == #"["in","out"]"#)
    }

    @Test func absentOptionalFieldsDecodeAsNil() throws {
        // A daemon that omits a null field (older or hand-written) still decodes.
        let text =
            #"{"id":"x","keyTag":"AAAA-BBBB","name":"n","presence":"offline","status":"busy","#
            + #""statusText":"","trust":"blocked","contact":false,"addresses":[]}"#
        let peer = try GoldenJSON.decode(PeerInfo.self, text)
        #expect(peer.alias == nil && peer.lastSeen == nil && peer.trust == .blocked)
    }

    @Test func unknownEnumValueIsRejected() {
        let text =
            #"{"id":"x","keyTag":"AAAA-BBBB","name":"n","presence":"asleep","status":"busy","#
            + #""statusText":"","trust":"blocked","contact":false,"addresses":[]}"#
        #expect(throws: (any Error).self) { try GoldenJSON.decode(PeerInfo.self, text) }
    }

    @Test func displayNamePrefersTheAlias() {
        #expect(Fixtures.bob.displayName == "Bob")
        #expect(Fixtures.stranger.displayName == "alice")
    }
}
