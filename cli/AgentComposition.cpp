#include "AgentComposition.h"

#include <QCoreApplication>
#include <QTextStream>

namespace veetbot {

void bindProfileSession(AgentSession &session, BoundProfile &bound, const QUuid &sessionId)
{
    session.policy = bound.policy;
    session.readyProfile = true; // bindProfile refuses any profile that is not READY
    session.taskGrantStore = bound.repository.get();
    session.owner = bound.owner;
    session.pins = TaskGrantPins{sessionId, bound.profile.id, bound.profile.generation,
                                 agentVersion(QCoreApplication::applicationVersion()), QString()};
    session.signInWall = [store = bound.repository.get(), owner = bound.owner,
                          profile = bound.profile.id, generation = bound.profile.generation] {
        profileNeedsOwner(*store, owner, profile, generation);
    };
}

void profileNeedsOwner(SqlProfileRepository &store, const ProfileScope &owner, const QUuid &profile,
                       qint64 generation)
{
    // Refused (profile.stale_generation, profile.invalid_transition) when it moved on or another
    // session marked it first: either way it is as it should be.
    (void)store.transition(owner, profile, generation, ProfileStatus::NeedsUser);
}

Result<Unit> useStandingGrant(AgentSession &session, SqlProfileRepository &store,
                              const QString &grant, const QString &purpose)
{
    const QUuid id = QUuid::fromString(grant);
    const Result<StandingGrant> known =
        id.isNull() ? Result<StandingGrant>(standingGrantError(StandingGrantFailure::NotFound))
                    : store.standingGrant(session.owner, id);
    if (!known)
        return known.error();
    session.standingGrantStore = &store;
    session.standingGrant = id;
    if (!purpose.isEmpty())
        session.purpose = purpose;
    return Unit{};
}

void endSessionTaskGrant(SqlProfileRepository &store, const ProfileScope &owner,
                         const QUuid &session)
{
    const Result<std::optional<TaskGrant>> active = store.activeTaskGrant(owner, session);
    if (active && *active)
        (void)store.endTaskGrant(owner, (*active)->id, TaskGrantEnd::SessionEnded);
}

bool recordOnTimeline(AgentSession &session, SqlProfileRepository &timeline, const ActivityRun &run,
                      const QString &command)
{
    if (!timeline.startRun(session.owner, run).ok()) {
        QTextStream(stderr) << "veetbot " << command
                            << ": the activity timeline is unavailable; this session is not "
                               "recorded\n";
        return false;
    }
    SqlProfileRepository *store = &timeline;
    const ProfileScope owner = session.owner;
    const QUuid runId = run.id;
    session.activity = [store, owner, runId](const ActivityEvent &event) {
        (void)store->appendEvent(owner, runId, event);
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
