import LanChatControl

/// One function per control method, named like the method, the CLI command and the daemon
/// handler ("one name in four places", ARCHITECTURE.md). Each is `call` with its descriptor.
extension ControlClient {
    public func status() async throws(ControlError) -> StatusResult {
        try await call(Methods.Status.self, NoParams())
    }

    public func who(_ params: WhoParams = WhoParams()) async throws(ControlError) -> WhoResult {
        try await call(Methods.Who.self, params)
    }

    /// With `wait`/`waitRead` the daemon answers after up to `timeout` seconds (default
    /// 30) by design: the answer timeout is added to that.
    public func send(_ params: SendParams) async throws(ControlError) -> SendResult {
        let waits = params.wait == true || params.waitRead == true
        let requested = params.timeout.flatMap { $0.isFinite && $0 > 0 ? min($0, 31_536_000) : nil }
        let waitSeconds = waits ? requested ?? 30 : 0
        return try await call(
            Methods.Send.self, params,
            timeout: Self.answerTimeout + .milliseconds(Int64(waitSeconds * 1000)))
    }

    public func history(_ params: HistoryParams) async throws(ControlError) -> HistoryResult {
        try await call(Methods.History.self, params)
    }

    public func presence(_ params: PresenceParams) async throws(ControlError) -> StatusResult {
        try await call(Methods.SetPresence.self, params)
    }

    public func retry(_ params: RetryParams = RetryParams()) async throws(ControlError)
        -> RetryResult
    {
        try await call(Methods.Retry.self, params)
    }

    public func backup(_ params: BackupParams) async throws(ControlError) -> BackupResult {
        try await call(Methods.Backup.self, params)
    }
}

/// The reading methods (PRODUCT.md §4). `watch` is not here: it streams (`ControlClient+Watch`).
extension ControlClient {
    public func inbox(_ params: InboxParams = InboxParams()) async throws(ControlError)
        -> InboxResult
    {
        try await call(Methods.Inbox.self, params)
    }

    public func read(_ params: ReadParams = ReadParams()) async throws(ControlError) -> ReadResult {
        try await call(Methods.Read.self, params)
    }

    public func archive(_ params: ArchiveParams) async throws(ControlError) -> ArchiveResult {
        try await call(Methods.Archive.self, params)
    }

    public func unarchive(_ params: ArchiveParams) async throws(ControlError) -> ArchiveResult {
        try await call(Methods.Unarchive.self, params)
    }

    public func search(_ params: SearchParams) async throws(ControlError) -> SearchResult {
        try await call(Methods.Search.self, params)
    }

    public func typing(_ params: TypingParams) async throws(ControlError) -> TypingResult {
        try await call(Methods.Typing.self, params)
    }
}

/// The contact methods (PRODUCT.md §4, §6).
extension ControlClient {
    public func contacts() async throws(ControlError) -> ContactsResult {
        try await call(Methods.Contacts.self, NoParams())
    }

    public func add(_ params: AddParams) async throws(ControlError) -> PeerResult {
        try await call(Methods.Add.self, params)
    }

    public func alias(_ params: AliasParams) async throws(ControlError) -> PeerResult {
        try await call(Methods.Alias.self, params)
    }

    public func verify(_ params: VerifyParams) async throws(ControlError) -> VerifyResult {
        try await call(Methods.Verify.self, params)
    }

    public func block(_ params: PeerParams) async throws(ControlError) -> PeerResult {
        try await call(Methods.Block.self, params)
    }

    public func unblock(_ params: PeerParams) async throws(ControlError) -> PeerResult {
        try await call(Methods.Unblock.self, params)
    }

    public func remove(_ params: RemoveParams) async throws(ControlError) -> RemoveResult {
        try await call(Methods.Remove.self, params)
    }

    public func accept(_ params: PeerParams) async throws(ControlError) -> PeerResult {
        try await call(Methods.Accept.self, params)
    }
}

// MARK: Groups

extension ControlClient {
    public func groups() async throws(ControlError) -> GroupsResult {
        try await call(Methods.Groups.self, NoParams())
    }

    public func groupCreate(_ params: GroupCreateParams) async throws(ControlError) -> GroupResult {
        try await call(Methods.GroupCreate.self, params)
    }

    public func groupAdd(_ params: GroupMembersParams) async throws(ControlError) -> GroupResult {
        try await call(Methods.GroupAdd.self, params)
    }

    public func groupRemove(_ params: GroupMembersParams) async throws(ControlError)
        -> GroupResult
    {
        try await call(Methods.GroupRemove.self, params)
    }

    public func groupRename(_ params: GroupRenameParams) async throws(ControlError)
        -> GroupResult
    {
        try await call(Methods.GroupRename.self, params)
    }

    public func groupLeave(_ params: GroupParams) async throws(ControlError) -> GroupResult {
        try await call(Methods.GroupLeave.self, params)
    }
}
