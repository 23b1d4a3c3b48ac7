#include "ActAuthority.h"

#include "domain/web/Origin.h"

#include <QDateTime>

#include <utility>

namespace veetbot {

bool ActAuthority::allowsOrdinaryInteraction(const PolicySettings &settings,
                                             const PolicyContext &context)
{
    // The owner's or the scheduler's seed (a schedule the owner made, on the profile it pinned):
    // never a turn opened by untrusted content.
    return settings.ordinaryInteraction && context.providerBound && context.isolatedProvider &&
           context.readyProfile &&
           (context.turn == TurnSource::Owner || context.turn == TurnSource::Schedule);
}

bool ActAuthority::allowsTaskGrants(const PolicySettings &settings, const PolicyContext &context)
{
    return settings.taskGrants && context.providerBound && context.isolatedProvider &&
           context.readyProfile && context.turn == TurnSource::Owner;
}

ActAuthority::ActAuthority(Session session) : m_session(std::move(session)) {}

bool ActAuthority::taskGrantsApply() const
{
    return m_session.taskGrants && m_session.pins.isComplete() &&
           allowsTaskGrants(m_session.settings, m_session.context);
}

ActAuthority::Decision ActAuthority::decide(const ActRequest &request,
                                            const std::optional<ElementFacts> &facts,
                                            const PageFacts &page, bool knownWrite)
{
    if (!facts)
        return Decision{};
    if (!knownWrite && allowsOrdinaryInteraction(m_session.settings, m_session.context) &&
        !GrantCoverage::refuseAct(request, *facts, page.url)) {
        // A routine or unknown control, covered on the facts of the observation that named
        // it. The provider checks the live element the same way just before input, and keeps
        // the act's documents on this origin's non-sensitive paths.
        return Decision{Decision::Kind::OrdinaryInteraction, DispatchConstraint{}, std::nullopt,
                        std::nullopt};
    }
    if (!knownWrite && standingGrantAllows(request, *facts, page.url)) {
        // Routine interaction only, rechecked the same way on the live page.
        return Decision{Decision::Kind::StandingGrant,
                        DispatchConstraint{DispatchConstraint::Authority::StandingGrant, QString()},
                        std::nullopt, std::nullopt};
    }
    if (!taskGrantsApply())
        return Decision{};
    if (std::optional<Decision> granted = useTaskGrant(request, *facts, page))
        return *granted;
    Decision ask;
    ask.offer = taskGrantOffer(request, *facts, page.url);
    return ask;
}

bool ActAuthority::standingGrantAllows(const ActRequest &request, const ElementFacts &facts,
                                       const QUrl &page) const
{
    const PolicyContext &context = m_session.context;
    if (!m_session.standingGrants || !m_session.standingGrant || !context.providerBound ||
        !context.isolatedProvider || !context.readyProfile)
        return false;
    const QDateTime now = QDateTime::currentDateTimeUtc();
    const Result<Origin> origin = Origin::parse(approvalOriginOf(page), m_session.overrides);
    const StandingGrantUse use{.scope = m_session.owner,
                               .profileId = m_session.pins.profileId,
                               .profileGeneration = m_session.pins.profileGeneration,
                               .agentVersion = m_session.pins.agentVersion,
                               .policyVersion = m_session.pins.policyVersion,
                               .pageOrigin = origin ? std::optional<Origin>(*origin) : std::nullopt,
                               .pageUrl = page,
                               .request = request,
                               .facts = facts,
                               .purpose = m_session.purpose,
                               .actionDeadline = now.addMSecs(m_session.actDeadlineMs),
                               .now = now};
    return m_session.standingGrants->authorize(m_session.owner, *m_session.standingGrant, use)
        .allowed;
}

std::optional<ActAuthority::Decision> ActAuthority::useTaskGrant(const ActRequest &request,
                                                                 const ElementFacts &facts,
                                                                 const PageFacts &page)
{
    const Result<std::optional<TaskGrant>> active =
        m_session.taskGrants->activeTaskGrant(m_session.owner, m_session.pins.session);
    if (!active || !*active)
        return std::nullopt;
    const TaskGrant &grant = **active;
    const DispatchConstraint constraint{DispatchConstraint::Authority::TaskGrant,
                                        grant.scope.segment()};
    if (!grant.scope.contains(page.url, m_session.overrides) ||
        !constraint.covers(request, facts, page.url))
        return std::nullopt;
    const int typed =
        request.kind() == ActRequest::Kind::Type ? int(request.text().toUcs4().size()) : 0;
    const Result<TaskGrantUse> use =
        m_session.taskGrants->useTaskGrant(m_session.owner, m_session.pins, grant.id, typed,
                                           ApprovalView::build(request, page, facts).toAuditJson());
    if (!use)
        return std::nullopt; // ended, over its text cap, or unavailable: a card decides
    return Decision{Decision::Kind::TaskGrant, constraint, std::nullopt, *use};
}

std::optional<TaskGrantOffer> ActAuthority::taskGrantOffer(const ActRequest &request,
                                                           const ElementFacts &facts,
                                                           const QUrl &page) const
{
    const Result<TaskScopePolicy> scopes = m_session.taskGrants->taskScopes(m_session.owner);
    if (!scopes)
        return std::nullopt;
    const std::optional<TaskScope> scope = scopes->scopeFor(page, m_session.overrides);
    if (!scope || scope->isSensitive())
        return std::nullopt;
    const DispatchConstraint constraint{DispatchConstraint::Authority::TaskGrant, scope->segment()};
    if (!constraint.covers(request, facts, page))
        return std::nullopt;
    return TaskGrantOffer{*scope};
}

} // namespace veetbot
