import LanChatControl

extension ControlDispatcher {
    /// The contact methods (PRODUCT.md §4), one line each like `routes(to:)`.
    mutating func registerContactRoutes(to messenger: Messenger) {
        register(Methods.Contacts.self) { _ throws(ControlError) in try await messenger.contacts() }
        register(Methods.Add.self) { params throws(ControlError) in try await messenger.add(params)
        }
        register(Methods.Alias.self) { params throws(ControlError) in
            try await messenger.alias(params)
        }
        register(Methods.Verify.self) { params throws(ControlError) in
            try await messenger.verify(params)
        }
        register(Methods.Block.self) { params throws(ControlError) in
            try await messenger.block(params)
        }
        register(Methods.Unblock.self) { params throws(ControlError) in
            try await messenger.unblock(params)
        }
        register(Methods.Remove.self) { params throws(ControlError) in
            try await messenger.remove(params)
        }
        register(Methods.Accept.self) { params throws(ControlError) in
            try await messenger.accept(params)
        }
    }
}
