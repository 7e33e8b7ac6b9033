import LanChatControl
import LanChatStore

extension Messenger {
    /// `backup`: a consistent copy of the store at a new absolute path, made by the store's
    /// online backup while the daemon keeps running (`MessageStore.backup(to:)`). The path is
    /// checked here, where the request comes in; the store refuses an existing file.
    func backup(_ params: BackupParams) async throws(ControlError) -> BackupResult {
        let path = params.path
        guard path.hasPrefix("/") else {
            throw .invalidParams("path must be absolute (the daemon's directory is not yours)")
        }
        guard !path.utf8.contains(0), path.utf8.count <= 4096 else {
            throw .invalidParams("path is not a usable file name")
        }
        let summary: BackupSummary
        do {
            summary = try await store.backup(to: path)
        } catch {
            throw .failed(error.description)
        }
        return BackupResult(path: summary.path, bytes: summary.bytes, messages: summary.messages)
    }
}
