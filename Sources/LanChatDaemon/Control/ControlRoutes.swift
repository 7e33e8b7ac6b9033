import LanChatControl

extension ControlDispatcher {
    /// The control API: one line per method, each name shared by the CLI command, the
    /// JSON-RPC method, the client call and the handler (ARCHITECTURE.md habit 1).
    static func routes(to messenger: Messenger) -> ControlDispatcher {
        var dispatcher = ControlDispatcher()
        dispatcher.register(Methods.Status.self) { _ throws(ControlError) in
            try await messenger.status()
        }
        dispatcher.register(Methods.Who.self) { params throws(ControlError) in messenger.who(params)
        }
        dispatcher.register(Methods.Send.self) { params throws(ControlError) in
            try await messenger.send(params)
        }
        dispatcher.register(Methods.History.self) { params throws(ControlError) in
            try await messenger.history(params)
        }
        dispatcher.register(Methods.SetPresence.self) { params throws(ControlError) in
            try await messenger.setPresence(params)
        }
        dispatcher.register(Methods.Retry.self) { params throws(ControlError) in
            try await messenger.retry(params)
        }
        dispatcher.register(Methods.Backup.self) { params throws(ControlError) in
            try await messenger.backup(params)
        }
        dispatcher.register(Methods.Inbox.self) { params throws(ControlError) in
            try await messenger.inbox(params)
        }
        dispatcher.register(Methods.Read.self) { params throws(ControlError) in
            try await messenger.read(params)
        }
        dispatcher.register(Methods.Archive.self) { params throws(ControlError) in
            try await messenger.archive(params, archived: true)
        }
        dispatcher.register(Methods.Unarchive.self) { params throws(ControlError) in
            try await messenger.archive(params, archived: false)
        }
        dispatcher.register(Methods.Search.self) { params throws(ControlError) in
            try await messenger.search(params)
        }
        dispatcher.registerContactRoutes(to: messenger)
        dispatcher.registerGroupRoutes(to: messenger)
        dispatcher.register(Methods.Typing.self) { params throws(ControlError) in
            try await messenger.typing(params)
        }
        dispatcher.registerStreaming(Methods.Watch.self) { params throws(ControlError) in
            try await messenger.openWatch(params)
        }
        return dispatcher
    }
}
