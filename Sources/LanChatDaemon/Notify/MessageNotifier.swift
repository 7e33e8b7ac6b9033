import LanChatCore
import LanChatStore
import Logging
import ServiceLifecycle
import Synchronization

/// `--notify-command` (PRODUCT.md §3): runs the command for each incoming message, with
/// `LANCHAT_FROM` (display name), `LANCHAT_FROM_ID` (52-character id) and `LANCHAT_TEXT` in
/// its environment, and for a group's message `LANCHAT_GROUP` (its name) and
/// `LANCHAT_GROUP_ID` (32 hex digits): without them a group's message read as said to the
/// user alone (found by QA).
///
/// A `Service` fed by the event bus's `messagesReceived`, which the links publish after the
/// messages are stored (or staged) and acknowledged: delivery never waits for a command. Two
/// child tasks: the feed, which only queues (`NotifyQueue`, at most `maxWaiting`, dropping the
/// oldest beyond), and the starter, which starts the next when fewer than 4 run. The command
/// is read when a run starts, so a reload applies to what waits, and turning it off drops
/// what waits. Each run is ended (its whole process group) after 10 s by the injected clock,
/// or when the daemon stops (then nothing new starts); a failing one is logged, never retried.
final class MessageNotifier: Service, Sendable {
    static let maxRunning = 4
    /// 4 at once for up to 10 s each: the last of 32 starts within 80 s of its message.
    static let maxWaiting = 32
    static let timeLimit: Duration = .seconds(10)

    /// Whether a message from this peer may notify: the daemon passes "not blocked".
    typealias Filter = @Sendable (PeerKey) -> Bool
    /// Whether this peer's 1:1 messages are a pending message request (`--accept
    /// contacts`): they do not notify. Its messages in a group are the group's to decide
    /// (found by QA: a pending 1:1 request silenced a group the user had accepted).
    typealias RequestFilter = @Sendable (PeerKey) -> Bool
    /// A group's name, and whether its messages are held (a pending group request: they
    /// do not notify, as they stay out of the inbox and the unread count, PRODUCT.md §6;
    /// found by QA); nil for a group not known.
    typealias GroupLookup = @Sendable (GroupID) async -> (name: String, held: Bool)?

    private let events: EventBus
    private let setting: NotifyCommandSetting
    private let wants: Filter
    private let inRequest: RequestFilter
    private let group: GroupLookup
    private let displayName: @Sendable (PeerKey) -> String
    private let clock: DaemonClock
    private let timeLimit: Duration
    private let logger: Logger
    private let queue = NotifyQueue(limit: maxWaiting, maxRunning: maxRunning)
    /// Rung by the feed (items queued) and by each run's end (room for the next).
    private let wakeup = Wakeup()

    init(
        events: EventBus, setting: NotifyCommandSetting, wants: @escaping Filter,
        inRequest: @escaping RequestFilter = { _ in false },
        group: @escaping GroupLookup = { _ in nil },
        displayName: @escaping @Sendable (PeerKey) -> String, clock: DaemonClock,
        timeLimit: Duration = MessageNotifier.timeLimit, logger: Logger
    ) {
        self.events = events
        self.setting = setting
        self.wants = wants
        self.inRequest = inRequest
        self.group = group
        self.displayName = displayName
        self.clock = clock
        self.timeLimit = timeLimit
        self.logger = logger
    }

    func run() async throws {
        let subscription = events.subscribe(to: [.messagesReceived])
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                group.addTask { await self.feed(subscription) }
                await self.startRuns(in: &group)
            }
        }
    }

    /// Runs under way and runs waiting (for tests).
    var pendingCounts: (running: Int, waiting: Int) {
        (queue.runningCount, queue.waitingCount)
    }

    /// Queues a run for each message that may notify, while a command is set.
    private func feed(_ subscription: AsyncStream<DaemonEvent>) async {
        for await event in subscription {
            guard case .messagesReceived(let peer, let messages) = event,
                setting.command != nil, wants(peer)
            else { continue }
            let from = displayName(peer)
            let directRequest = inRequest(peer)
            var groups: [GroupID: (name: String, held: Bool)?] = [:]
            var items: [NotifyQueue.Item] = []
            for message in messages {
                var variables = [
                    "LANCHAT_FROM": from, "LANCHAT_FROM_ID": peer.id,
                    "LANCHAT_TEXT": message.text,
                ]
                if let id = message.message.group.flatMap({ GroupID(bytes: $0) }) {
                    if groups[id] == nil { groups[id] = .some(await group(id)) }
                    if let known = groups[id] ?? nil {
                        if known.held { continue }
                        variables["LANCHAT_GROUP"] = known.name
                    }
                    variables["LANCHAT_GROUP_ID"] = id.description
                } else if directRequest {
                    continue
                }
                items.append(NotifyQueue.Item(variables: variables))
            }
            guard !items.isEmpty else { continue }
            queue.append(items)
            wakeup.signal()
        }
    }

    /// Starts what waits while there is room, until the daemon stops.
    private func startRuns(in group: inout DiscardingTaskGroup) async {
        while !Task.isCancelled {
            while !Task.isCancelled, let item = queue.startNext() {
                guard let command = setting.command else {
                    queue.finished()
                    queue.discardWaiting()
                    break
                }
                group.addTask {
                    await self.runOnce(command, item.variables)
                    self.queue.finished()
                    self.wakeup.signal()
                }
            }
            if let dropped = queue.takeDroppedAfterBurst() {
                logger.warning(
                    "notify-command not run for \(dropped) messages of a burst: at most \(Self.maxWaiting) wait for it"
                )
            }
            await wakeup.wait(until: nil, clock: clock)
        }
    }

    /// One run: started, waited for, ended at the time limit (or when the daemon stops).
    private func runOnce(_ command: String, _ variables: [String: String]) async {
        let pid: Int32
        switch NotifyProcess.spawn(command: command, variables: variables) {
        case .failure(let error):
            logger.error("notify-command could not be started (errno \(error.code))")
            return
        case .success(let started):
            pid = started
        }
        let deadline = clock.monotonic() + timeLimit
        // Whether it ended by itself, and whether we ended it; the one lock orders the two.
        let state = RunState()
        let status = await withTaskGroup(of: Int32?.self) { group in
            group.addTask {
                await NotifyProcess.wait(pid) { state.flags.withLock { $0.exited = true } }
            }
            group.addTask {
                // Time is up, or the run was cancelled (it ended, or the daemon is stopping).
                try? await self.clock.sleepUntil(deadline)
                state.flags.withLock { state in
                    guard !state.exited else { return }
                    state.killed = true
                    NotifyProcess.kill(pid)
                }
                return nil
            }
            var status: Int32 = 0
            for await result in group {
                if let result {
                    status = result
                    group.cancelAll()
                }
            }
            return status
        }
        if state.flags.withLock({ $0.killed }) {
            if Task.isCancelled {
                logger.info("notify-command ended: lanchatd is stopping")
            } else {
                logger.warning("notify-command ended: still running after \(timeLimit)")
            }
        } else if status != 0 {
            logger.warning("notify-command failed with exit status \(status)")
        }
    }
}

/// One run's end: whether the command ended by itself, and whether we ended it.
private final class RunState: Sendable {
    let flags = Mutex((exited: false, killed: false))
}

/// The notify command in use; SIGHUP replaces it (`ConfigurationReload`). nil or empty: none.
final class NotifyCommandSetting: Sendable {
    private let value: Mutex<String?>

    init(_ command: String?) {
        value = Mutex(command)
    }

    var command: String? {
        get { value.withLock { $0.flatMap { $0.isEmpty ? nil : $0 } } }
        set { value.withLock { $0 = newValue } }
    }
}
