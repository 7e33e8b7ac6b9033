/// The peer's PRESENCE frames, paced by `PresencePacer`: applied at once while the peer
/// changes its presence as a person does, held (the latest only) while it sends more.
extension PeerLink {
    func offerPresence(_ presence: PresencePacer.Presence) async {
        let now = services.clock.monotonic()
        if let applied = presencePacer.offer(presence, now: now) {
            await applyPresence(status: applied.status, statusText: applied.text)
        } else {
            presenceWakeup.signal()
        }
    }

    /// Applies the frame held back once its turn comes; a newer one replaces it meanwhile.
    func runHeldPresence() async {
        while !shouldStop {
            await presenceWakeup.wait(until: nil, clock: services.clock)
            while !shouldStop, let due = presencePacer.heldDue(now: services.clock.monotonic()) {
                await presenceWakeup.wait(until: due, clock: services.clock)
                if shouldStop { return }
                if let held = presencePacer.takeHeld(now: services.clock.monotonic()) {
                    await applyPresence(status: held.status, statusText: held.text)
                }
            }
        }
    }
}
