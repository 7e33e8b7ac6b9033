import LanChatCore
import LanChatStore

/// Groups on this peer's session (PROTOCOL.md §9.7): the GROUP frames it must have (sent
/// first after HELLO, and whenever one is queued while the session is up), the GROUPs it sends
/// us, and the group policy for its MSGs.
extension PeerLink {
    /// Whether the current session negotiated the groups capability.
    var sessionSupportsGroups: Bool {
        guard let session = phase.session else { return false }
        return session.capabilities & Capabilities.groups != 0
    }

    /// Sends the GROUP frames queued for this peer (of `group` only, when one changed) on the
    /// established session. Versions make a repeat harmless, so every session gets them all.
    ///
    /// With a session up but its HELLO not yet applied, the frames are not sent here: that
    /// HELLO sends them first thing (`groupFramesForNewSession`), and the phase tells it to
    /// read them again, since it may have read them before this one was queued.
    func sendGroupFrames(of group: GroupID? = nil) async {
        guard let (session, _) = phase.established else {
            phase.groupFrameQueued()
            return
        }
        guard sessionSupportsGroups else { return }
        let frames: [GroupUpdate]
        do {
            frames = try await services.store.groupFrames(for: key, group: group)
        } catch {
            logger.error("cannot read the group frames: \(error)")
            return
        }
        guard phase.isCurrent(session), !frames.isEmpty else { return }
        session.sendControl(frames.map(AppMessage.group))
    }

    /// The frames to send right after the peer's HELLO is applied, read beforehand so they
    /// leave before any MSG the pump writes. Read again while a frame was queued during the
    /// read (`sendGroupFrames` could not send it: the session was not established yet); the
    /// caller establishes the session with no suspension after this returns, so nothing
    /// queued later can miss both.
    func groupFramesForNewSession(_ source: any LinkSession) async -> [AppMessage] {
        guard source.capabilities & Capabilities.groups != 0 else { return [] }
        var frames: [AppMessage] = []
        _ = phase.takeGroupFramesQueued(on: source)
        repeat {
            do {
                frames = try await services.store.groupFrames(for: key).map(AppMessage.group)
            } catch {
                logger.error("cannot read the group frames: \(error)")
                return []
            }
        } while phase.takeGroupFramesQueued(on: source)
        return frames
    }

    /// A GROUP from this peer: applied only from a current member and only when it is newer
    /// (or wins the equal-version rule), then passed on to the members (`GroupPublisher`).
    /// Nothing from a blocked key is stored: one blocked while its session was still up (the
    /// session is closing) is ignored, like its MSGs.
    func groupReceived(_ update: GroupUpdate) async {
        guard !services.directory.isBlocked(key) else {
            logger.debug("GROUP \(update.id) from a blocked key ignored")
            return
        }
        await resendWhatItRefusedAsFromANonMember(update)
        for _ in 0..<3 {
            let local: StoredGroup?
            do {
                local = try await services.store.group(update.id)
            } catch {
                logger.error("cannot read a group: \(error)")
                return
            }
            let decision = GroupConvergence.decide(
                update, from: key, local: local?.state, basis: local?.basis ?? [],
                ownKey: services.directory.ownKey)
            guard decision == .apply else {
                logger.debug("GROUP \(update.id) v\(update.version) ignored: \(decision)")
                await acceptRequestAContactVouchesFor(local)
                return
            }
            // `--accept contacts`: a group a non-contact adds us to is a request.
            let asRequest =
                local == nil && services.directory.currentAcceptPolicy == .contacts
                && services.directory.entry(key)?.record.contact != true
            // Our own change losing an equal-version tie is made again on top of the winner.
            let ownLost = await ownChangeLosing(to: update, local: local)
            let overtaken =
                ownLost == nil ? await ownChangeOvertaken(by: update, local: local) : nil
            do {
                switch try await GroupPublisher(services: services).publish(
                    update, replacing: local, by: key, asRequest: asRequest)
                {
                case .saved:
                    await acceptRequestAContactVouchesFor(local)
                    if let ownLost { await reapply(ownLost, onto: update) }
                    if let overtaken {
                        logger.notice(
                            "group \(update.name): version \(update.version) from \(keyTag) does not have our change of version \(overtaken.state.version) (made without it while we were apart, or undone); make it again if it should stand"
                        )
                    }
                    return
                case .conflict:
                    continue
                }
            } catch {
                logger.error("cannot store a group: \(error)")
                return
            }
        }
    }

    /// The peer lists us both in the group now: what it refused of ours in this group "by its
    /// policy" (it did not know us as a member yet: it held an older state, from before we
    /// were added, and could not take the newer one from us, §9.7) is sent again, once per
    /// such GROUP (found by QA: a copy refused so stayed failed for good, also after the
    /// member's state caught up). A GROUP is sent when the peer's state changes and at each
    /// session, so this is no loop.
    private func resendWhatItRefusedAsFromANonMember(_ update: GroupUpdate) async {
        let own = services.directory.ownKey
        guard update.hasMember(own), update.hasMember(key) else { return }
        let requeued: [StoredMessage]
        do {
            requeued = try await services.store.requeueFailed(
                peer: key, group: update.id, failReason: RejectReason.refusedByPolicy.description)
        } catch {
            logger.error("cannot re-queue group messages the peer refused: \(error)")
            return
        }
        guard !requeued.isEmpty else { return }
        logger.notice(
            "\(requeued.count) message(s) to group \(update.name) that the peer refused before it knew us as a member sent again"
        )
        await committed(requeued.sorted { $0.seq < $1.seq })
    }

    /// Our state `local`, when it is our own change and `update` beats it in an equal-version
    /// tie (PROTOCOL.md §9.7): the change to make again once `update` is stored.
    private func ownChangeLosing(to update: GroupUpdate, local: StoredGroup?) async
        -> StoredGroup?
    {
        guard let local, local.state.version == update.version,
            local.state.canonicalEncoding != update.canonicalEncoding
        else { return nil }
        return await ownChange(local)
    }

    /// Our state `local`, when it is our own change and `update`, of a higher version, has not
    /// got it: made by a member who had not seen it (a change made while the members were
    /// apart), or undone on purpose. Without a history of versions the two cannot be told
    /// apart, so it is not made again, only said (found by QA: a removal made while apart
    /// vanished without a word).
    private func ownChangeOvertaken(by update: GroupUpdate, local: StoredGroup?) async
        -> StoredGroup?
    {
        guard let local, update.version > local.state.version,
            GroupConvergence.reapply(
                local.state, basis: local.basis, onto: update, own: services.directory.ownKey)
                != nil
        else { return nil }
        return await ownChange(local)
    }

    /// `local` when we made it (the group's latest `group.changed` is ours), else nil.
    private func ownChange(_ local: StoredGroup) async -> StoredGroup? {
        do {
            return try await services.store.groupStateAuthor(local.state.id)
                == services.directory.ownKey ? local : nil
        } catch {
            logger.error("cannot read who changed a group: \(error)")
            return nil
        }
    }

    /// Makes our change `lost` again on top of `winner`, just stored, as a local change is
    /// made (`GroupPublisher`, to every member). Another state stored meanwhile moved the
    /// group on: then that one stands, as when two members change it at once.
    private func reapply(_ lost: StoredGroup, onto winner: GroupUpdate) async {
        let own = services.directory.ownKey
        guard
            let again = GroupConvergence.reapply(
                lost.state, basis: lost.basis, onto: winner, own: own)
        else { return }
        do {
            // Compared by encoding: the store gives the members back sorted.
            guard let stored = try await services.store.group(winner.id),
                stored.state.canonicalEncoding == winner.canonicalEncoding
            else { return }
            let outcome = try await GroupPublisher(services: services).publish(
                again, replacing: stored, by: own)
            if case .saved = outcome {
                logger.notice(
                    "group \(winner.name): our change met one made at the same time by \(PeerDirectory.keyTag(key)); made again on top of it as version \(again.version)"
                )
            }
        } catch {
            logger.error("cannot make a group change again: \(error)")
        }
    }

    /// A group request (`--accept contacts`) that this peer, a contact of ours and one of
    /// its members, sends us too is no request: a contact added us. Without this, whether a
    /// contact's new group was a request depended on which member's copy came first (found
    /// by QA: a non-contact member passing it on before the contact's own copy arrived).
    private func acceptRequestAContactVouchesFor(_ local: StoredGroup?) async {
        guard let local, local.requestFrom != nil, local.state.hasMember(key),
            local.state.hasMember(services.directory.ownKey),
            services.directory.entry(key)?.record.contact == true
        else { return }
        do {
            if try await services.store.acceptGroupRequest(local.state.id) {
                logger.info(
                    "group request \(local.state.name) accepted: a contact of ours, a member, sent it too"
                )
            }
        } catch {
            logger.error("cannot accept a group request: \(error)")
        }
    }

    /// The groups of a chunk's group MSGs, for `groupPolicyRefuses`.
    func groupsOf(_ run: [WireMessage]) async -> [GroupID: StoredGroup] {
        var groups: [GroupID: StoredGroup] = [:]
        for id in Set(run.compactMap { $0.group.flatMap { GroupID(bytes: $0) } }) {
            if let group = try? await services.store.group(id) { groups[id] = group }
        }
        return groups
    }

    /// A group MSG is taken only on a session that negotiated groups, for a group we hold,
    /// from one of its members, or of the state it was built on while that change is recent
    /// (`removalGrace`: a message crossing the change that removed its sender; found by QA,
    /// a removed member could post for as long as no later change came). Others are
    /// REJECTed as refused by policy (processed, not stored).
    ///
    /// Nor is one sent to us after we left or were removed (PRODUCT.md §4: "a removed member
    /// receives nothing sent after its removal"): a sender out of touch, who has not learnt
    /// of the change, still sends (found by QA). Sent before we learnt of it, it crossed the
    /// change and is taken.
    func groupPolicy(_ message: WireMessage, groups: [GroupID: StoredGroup]) -> RejectReason? {
        guard let bytes = message.group else { return nil }
        guard sessionSupportsGroups, let id = GroupID(bytes: bytes), let group = groups[id],
            group.state.hasMember(key)
                || (group.basis.contains(key)
                    && services.now() - group.updatedAt < Self.removalGrace),
            group.state.hasMember(services.directory.ownKey)
                || message.sentAt < group.updatedAt
        else {
            if let heldBack = rejectionLines.take(at: services.clock.monotonic()) {
                logger.info(
                    "rejecting group message \(message.seq): not from a member, or not to one\(LogLineBudget.suffix(heldBack))"
                )
            }
            return .refusedByPolicy
        }
        return nil
    }
}
