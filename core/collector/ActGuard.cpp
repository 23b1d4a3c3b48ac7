#include "ActGuard.h"

#include "domain/observation/CaptureAssembly.h"

#include <QTimer>

namespace veetbot {

void ActGuard::beginAct(std::optional<DispatchConstraint> constraint)
{
    m_constraint = std::move(constraint);
    m_dispatched = false;
    m_inAct = true;
    // Only an approval or a task grant may write; what else stands behind an act reads. Once
    // the act that may write has answered, the guard stands again: the approval was for it.
    const bool mayWrite = !m_constraint.has_value() ||
                          m_constraint->authority == DispatchConstraint::Authority::TaskGrant;
    m_armed = !mayWrite;
    m_armAfterAct = mayWrite;
    m_writesRefusedBeforeAct = m_writesRefused;
    m_graceOver = false;
    if (m_lastRefused)
        m_refusedBeforeAct = std::exchange(m_lastRefused, std::nullopt);
}

void ActGuard::beginNavigation(bool guarded)
{
    m_armed = false;
    m_navigationGuarded = guarded;
    m_inNavigation = true;
    m_writesRefusedBeforeNavigation = m_writesRefused;
}

void ActGuard::endNavigation()
{
    m_navigationGuarded = false;
    m_inNavigation = false;
}

bool ActGuard::allows(const WriteGuard::Request &request)
{
    const bool judged = m_armed || (m_navigationGuarded && !m_inAct &&
                                    request.kind == WriteGuard::RequestKind::Document);
    if (!judged)
        return true;
    const WriteGuard::Judgement judgement = WriteGuard::judge(request);
    if (judgement.verdict == WriteGuard::Verdict::Write) {
        ++m_writesRefused;
        if (!m_inAct && !m_inNavigation)
            ++m_lateWrites;
        m_lastRefused = WriteGuard::describeRefusal(request);
    }
    return judgement.verdict == WriteGuard::Verdict::Read;
}

bool ActGuard::allowsDocument(const QUrl &url, const QUrl &page)
{
    const bool reads = allows({"GET", WriteGuard::RequestKind::Document, url, std::nullopt, {}});
    return reads && fenceAllows(url, page);
}

std::optional<ReasonCode> ActGuard::recheck(const ActRequest &request, const ElementFacts *observed,
                                            const QJsonObject &ready, const QUrl &livePage) const
{
    // The role and name are the observed ones: the trial already refused a target whose live
    // role or name differs.
    if (!m_constraint || !observed)
        return ReasonCode::GrantNotApplicable;
    const std::optional<ElementFacts> live =
        CaptureAssembly::elementFactsRecord(ready.value(QStringLiteral("facts")), observed->role,
                                            observed->accessibleName, false, livePage);
    if (!live || !m_constraint->covers(request, *live, livePage))
        return ReasonCode::GrantNotApplicable;
    return std::nullopt;
}

bool ActGuard::deferForGrace(Result<BrowserObservation> &result, QObject *context,
                             std::function<void(Result<BrowserObservation>)> again)
{
    if (!result.ok() || !m_dispatched || !m_armed || m_graceOver)
        return false;
    m_graceOver = true;
    QTimer::singleShot(
        kGraceMs, context,
        [again = std::move(again), held = std::move(result)]() mutable { again(std::move(held)); });
    return true;
}

Result<BrowserObservation> ActGuard::conclude(Result<BrowserObservation> result, bool *retire)
{
    *retire = false;
    if (m_dispatched && m_writesRefused > m_writesRefusedBeforeAct) {
        // The act tried to write and the guard refused it: nothing that could write reached
        // the site, whatever the page shows now.
        *retire = true;
        result = ReasonCode::WriteRequiresApproval;
    } else if (m_dispatched && !result.ok()) {
        // Input may have reached the site: the outcome is unknown, and nothing is ever sent
        // again for this call.
        *retire = true;
        result = ReasonCode::OutcomeUnknown;
    }
    m_writesRefusedBeforeAct = m_writesRefused;
    m_dispatched = false;
    m_constraint.reset();
    if (m_inAct && m_armAfterAct)
        m_armed = true;
    m_inAct = false;
    m_armAfterAct = false;
    return result;
}

} // namespace veetbot
