import LanChatControl

extension ControlDispatcher {
    /// The group methods (`Messenger+Groups`).
    mutating func registerGroupRoutes(to messenger: Messenger) {
        register(Methods.Groups.self) { _ throws(ControlError) in try await messenger.groups() }
        register(Methods.GroupCreate.self) { params throws(ControlError) in
            try await messenger.groupCreate(params)
        }
        register(Methods.GroupAdd.self) { params throws(ControlError) in
            try await messenger.groupAdd(params)
        }
        register(Methods.GroupRemove.self) { params throws(ControlError) in
            try await messenger.groupRemove(params)
        }
        register(Methods.GroupRename.self) { params throws(ControlError) in
            try await messenger.groupRename(params)
        }
        register(Methods.GroupLeave.self) { params throws(ControlError) in
            try await messenger.groupLeave(params)
        }
    }
}
