#include "ActGuard.h"

#include "domain/observation/CaptureAssembly.h"

#include <QTimer>

namespace veetbot {

namespace {
constexpr qsizetype kMaxRememberedStrangers = 1024;
} // namespace

void ActGuard::beginAct(std::optional<DispatchConstraint> constraint)
{
    m_agent = true;
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
    m_agent = m_agent || guarded;
    // The page the typing was on is left: the next one starts untyped.
    m_typed = false;
    m_loadedFromStrangers.clear();
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

bool ActGuard::allowsStranger(const WriteGuard::Request &request)
{
    // An approved or task-granted act's own consequence may need a third party (a payment
    // provider's POST during an approved "Pay").
    if (!m_agent || (m_inAct && m_armAfterAct))
        return true;
    const bool carriesData = (request.method != "GET" && request.method != "HEAD") ||
                             (request.body && !request.body->isEmpty()) ||
                             request.kind == WriteGuard::RequestKind::Beacon;
    if (carriesData)
        return false;
    if (m_typed)
        return m_loadedFromStrangers.contains(request.url);
    if (m_loadedFromStrangers.size() < kMaxRememberedStrangers)
        m_loadedFromStrangers.insert(request.url);
    return true;
}

bool ActGuard::allows(const WriteGuard::Request &request)
{
    if (request.stranger && !allowsStranger(request)) {
        // A write to a stranger while a guarded click or choice runs is that act's write: the
        // act ends write_requires_approval and its control asks (approved, it goes). One while
        // text or a key is sent is the page passing the typing on (a keystroke recorder):
        // never the typing's purpose, refused quietly like any other page's own and counted.
        const bool actsWrite = m_armed && m_inAct && m_dispatched && !m_actTypes &&
                               WriteGuard::judge(request).verdict == WriteGuard::Verdict::Write;
        if (actsWrite) {
            ++m_writesRefused;
            m_lastRefused = WriteGuard::describeRefusal(request);
        }
        ++m_strangersRefused;
        return false;
    }
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
    m_actTypes = false;
    m_constraint.reset();
    if (m_inAct && m_armAfterAct)
        m_armed = true;
    m_inAct = false;
    m_armAfterAct = false;
    return result;
}

} // namespace veetbot
