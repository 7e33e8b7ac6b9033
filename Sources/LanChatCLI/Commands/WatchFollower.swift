import LanChatClient
import LanChatControl

/// The loop behind `lanchat watch`: prints each event as it arrives and rides out a daemon
/// restart.
///
/// It remembers the cursor of the last event printed (before any, the daemon's starting
/// cursor). When the stream ends because the daemon went away, it reconnects with a backoff
/// of 100 ms doubling to 2 s and asks for `since` = that cursor, so the daemon replays exactly
/// what was missed: nothing lost, nothing printed twice. `watchOverflow` resumes at once from
/// the cursor the daemon names. Only the very first connection fails fast (exit 69 with no
/// daemon), like every other command; a refusal (`cursorTooOld`, an unknown peer) ends it.
struct WatchFollower {
    let context: CommandContext
    let peer: String?
    let since: String?

    static let firstBackoff: Duration = .milliseconds(100)
    static let maxBackoff: Duration = .seconds(2)

    func run() async throws(ControlError) {
        var cursor = since
        // The name given at first; once a stream started, the id the daemon resolved it to.
        var target = peer
        var started = false
        var seen = Seen()
        var backoff = Self.firstBackoff
        var noted = false
        while !Task.isCancelled {
            let ending = await follow(
                target: &target, cursor: &cursor, started: &started, seen: &seen
            ) {
                backoff = Self.firstBackoff
                noted = false
            }
            if Task.isCancelled { return }
            if context.environment.output.outputFailed {
                // Found by QA: `watch > /dev/full` went on, dropping every event, and ended
                // with 0. It stops (exit 74), saying where a new watch takes over.
                context.err(
                    "lanchat: stopped watching"
                        + (cursor.map { "; resume after the last event written with --since \($0)" }
                            ?? "") + "\n")
                return
            }
            let reason: String
            if let ending {
                if ending.isWatchOverflow {
                    cursor = ending.data?.cursor ?? cursor
                    if !context.json {
                        context.err(
                            "lanchat: fell behind the daemon; resuming from the last event\n")
                    }
                    continue
                }
                guard started, ending.isDaemonUnreachable else {
                    if ending.exitCode == 65, let oldest = ending.data?.cursor {
                        // Said once: the daemon's message may name the oldest cursor already.
                        let from =
                            ending.message.contains(oldest)
                            ? "" : "the oldest event kept has cursor \(oldest); "
                        throw .badInput(
                            "\(ending.message) (\(from)watch without --since to start from now)")
                    }
                    throw ending
                }
                reason = ending.message
            } else {
                reason = "lanchatd closed the stream"
            }
            // One note per outage, in text mode only: a script reading --json gets only events.
            if !noted && !context.json {
                context.err("lanchat: \(terminalSafe(reason)); reconnecting…\n")
            }
            noted = true
            do {
                try await Task.sleep(for: backoff)
            } catch {
                return
            }
            backoff = min(backoff * 2, Self.maxBackoff)
        }
    }

    /// One connection: prints its events until it ends. Returns the error that ended it, or
    /// nil when the daemon closed it (or the task was cancelled).
    private func follow(
        target: inout String?, cursor: inout String?, started: inout Bool,
        seen: inout Seen, onStart: () -> Void
    ) async -> ControlError? {
        do {
            for try await update in context.client.watch(WatchParams(peer: target, since: cursor)) {
                switch update {
                case .started(let result):
                    started = true
                    if cursor == nil { cursor = result.cursor }
                    // Watched again by its id: a rename meanwhile must not end the watch.
                    if let followed = result.followed { target = followed }
                    onStart()
                case .event(let event):
                    if let group = event.group { seen.groupNames[group.id] = group.name }
                    await learnGroupName(of: event, into: &seen)
                    // The line first: it compares the peer with how it was last seen.
                    let text = try line(event, seen: seen)
                    if let peer = event.peer { seen.peers[peer.id] = peer }
                    context.out(text)
                    if context.environment.output.outputFailed { return nil }
                    cursor = event.cursor
                }
            }
            return nil
        } catch let error as ControlError {
            return error
        } catch {
            return .internalError("the watch stream failed: \(error)")
        }
    }

    private func line(_ event: EventInfo, seen: Seen) throws(ControlError) -> String {
        if context.json { return try JSONOutput.line(event) }
        return WatchView.line(
            event, names: seen.peers, groupNames: seen.groupNames, now: context.now,
            zone: context.zone, style: context.style)
    }

    /// What this watch learnt, for the text lines: each peer as last seen (a rename is told
    /// by comparing), group names by id, and the group ids already looked up.
    struct Seen {
        var peers: [String: PeerInfo] = [:]
        var groupNames: [String: String] = [:]
        var groupsAsked: Set<String> = []
    }

    /// A `message.status` event of an own group message carries its group's id only: the
    /// text line names the group, so an id not seen in this watch yet is looked up with one
    /// `groups` call (a group left or removed since keeps its id unnamed).
    private func learnGroupName(of event: EventInfo, into seen: inout Seen) async {
        guard !context.json, event.type == .messageStatus, let id = event.message?.group,
            seen.groupNames[id] == nil, !seen.groupsAsked.contains(id)
        else { return }
        seen.groupsAsked.insert(id)
        guard let groups = try? await context.client.groups() else { return }
        for group in groups.groups where seen.groupNames[group.id] == nil {
            seen.groupNames[group.id] = group.name
        }
    }
}
