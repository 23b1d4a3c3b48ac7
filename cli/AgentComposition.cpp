#include "AgentComposition.h"

#include <QCoreApplication>
#include <QTextStream>

namespace veetbot {

void bindProfileSession(AgentSession &session, BoundProfile &bound, const QUuid &sessionId)
{
    session.policy = bound.policy;
    session.readyProfile = true; // bindProfile refuses any profile that is not READY
    session.taskGrantStore = &bound.repository->taskGrants();
    session.owner = bound.owner;
    session.pins = TaskGrantPins{sessionId, bound.profile.id, bound.profile.generation,
                                 agentVersion(QCoreApplication::applicationVersion()), QString()};
    session.signInWall = [store = bound.repository.get(), owner = bound.owner,
                          profile = bound.profile.id, generation = bound.profile.generation] {
        profileNeedsOwner(*store, owner, profile, generation);
    };
}

void profileNeedsOwner(SqlStores &store, const ProfileScope &owner, const QUuid &profile,
                       qint64 generation)
{
    // Refused (profile.stale_generation, profile.invalid_transition) when it moved on or another
    // session marked it first: either way it is as it should be.
    (void)store.profiles().transition(owner, profile, generation, ProfileStatus::NeedsUser);
}

Result<Unit> useStandingGrant(AgentSession &session, SqlStores &store, const QString &grant,
                              const QString &purpose)
{
    const QUuid id = QUuid::fromString(grant);
    const Result<StandingGrant> known =
        id.isNull() ? Result<StandingGrant>(standingGrantError(StandingGrantFailure::NotFound))
                    : store.standingGrants().standingGrant(session.owner, id);
    if (!known)
        return known.error();
    session.standingGrantStore = &store.standingGrants();
    session.standingGrant = id;
    if (!purpose.isEmpty())
        session.purpose = purpose;
    return Unit{};
}

void endSessionTaskGrant(SqlStores &store, const ProfileScope &owner, const QUuid &session)
{
    const Result<std::optional<TaskGrant>> active =
        store.taskGrants().activeTaskGrant(owner, session);
    if (active && *active)
        (void)store.taskGrants().endTaskGrant(owner, (*active)->id, TaskGrantEnd::SessionEnded);
}

bool recordOnTimeline(AgentSession &session, SqlStores &timeline, const ActivityRun &run,
                      const QString &command)
{
    if (!timeline.timeline().startRun(session.owner, run).ok()) {
        QTextStream(stderr) << "veetbot " << command
                            << ": the activity timeline is unavailable; this session is not "
                               "recorded\n";
        return false;
    }
    SqlStores *store = &timeline;
    const ProfileScope owner = session.owner;
    const QUuid runId = run.id;
    session.activity = [store, owner, runId](const ActivityEvent &event) {
        (void)store->timeline().appendEvent(owner, runId, event);
    };
    return true;
}

std::unique_ptr<EffectLedger> openAgentLedger(const QString &command)
{
    Result<std::unique_ptr<EffectLedger>> opened = EffectLedger::open(EffectLedger::defaultPath());
    if (!opened) {
        QTextStream(stderr) << "veetbot " << command << ": the effect ledger is unavailable ("
                            << opened.error().code << "); every action is refused\n";
        return nullptr;
    }
    std::unique_ptr<EffectLedger> ledger = std::move(opened).value();
    if (const auto uncertain = ledger->recoveredUncertain().size())
        QTextStream(stderr) << "veetbot " << command << ": " << uncertain
                            << " earlier action(s) may have reached the site and ended as "
                               "outcome_unknown; none is resent\n";
    return ledger;
}

} // namespace veetbot
