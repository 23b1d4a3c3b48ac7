#include "ToolPipeline.h"

#include "ObserveTool.h"
#include "ToolFailure.h"
#include "domain/Sha256.h"
#include "domain/ToolJson.h"
#include "domain/action/ActRequest.h"
#include "domain/action/ApprovalView.h"
#include "domain/action/WriteGuard.h"
#include "domain/authority/GrantCoverage.h"
#include "domain/observation/ObserveRequest.h"
#include "domain/signin/SignInChallenge.h"
#include "domain/web/Origin.h"
#include "ledger/EffectLedger.h"
#include "json/CanonicalJson.h"

#include <QTimer>

namespace veetbot {

namespace {

using Diagnostics::FailureCategory;
using Diagnostics::Phase;
using Diagnostics::Placement;

constexpr qsizetype kMaxKnownWrites = 256;

// A control as the owner would recognise it on another observation of the same page: the
// page's origin and path, and the element's role and accessible name.
QString controlKey(const QUrl &page, const ElementFacts &facts)
{
    return page.adjusted(QUrl::RemoveQuery | QUrl::RemoveFragment | QUrl::RemoveUserInfo)
               .toString(QUrl::FullyEncoded) +
           QChar(0) + facts.role + QChar(0) + facts.accessibleName;
}

bool isRefusal(const Error &error)
{
    // Decided before anything reached the site.
    static const QStringList refusals{
        QString(ToolArguments::kInvalidArgumentsCode),
        QString(ToolFailure::kPolicyDeniedCode),
        QString(ToolFailure::kApprovalDeniedCode),
        QString(ToolFailure::kApprovalRequiredCode),
        reasonCodeString(ReasonCode::PageChanged),
        reasonCodeString(ReasonCode::RegionNotActionable),
        reasonCodeString(ReasonCode::FocusRequired),
        reasonCodeString(ReasonCode::ActionNotAllowed),
        reasonCodeString(ReasonCode::ElementNotFound),
        reasonCodeString(ReasonCode::UrlDisallowed),
    };
    return refusals.contains(error.code);
}

FailureCategory categoryOf(const Error &error)
{
    const std::optional<ReasonCode> reason = error.reason();
    if (!reason)
        return FailureCategory::PolicyRefusal; // the pipeline's own refusals
    switch (*reason) {
    case ReasonCode::OutcomeUnknown:
        return FailureCategory::OutcomeUnknown;
    case ReasonCode::PageChanged:
    case ReasonCode::ElementNotFound:
    case ReasonCode::RegionNotActionable:
    case ReasonCode::FocusRequired:
        return FailureCategory::TargetAbsent;
    case ReasonCode::UrlDisallowed:
    case ReasonCode::ActionNotAllowed:
    case ReasonCode::NavigationCancelled:
    case ReasonCode::WriteRequiresApproval:
        return FailureCategory::PolicyRefusal;
    case ReasonCode::ProviderUnavailable:
        return FailureCategory::BrowserLost;
    default:
        return FailureCategory::UnsupportedFeature;
    }
}

Diagnostics::Outcome outcomeOf(const Result<BrowserObservation> &result)
{
    if (result)
        return Diagnostics::Outcome::Succeeded;
    if (result.error().is(ReasonCode::OutcomeUnknown))
        return Diagnostics::Outcome::Uncertain;
    if (result.error().is(ReasonCode::WriteRequiresApproval))
        return Diagnostics::Outcome::Refused; // at the request stage, after the gate
    return isRefusal(result.error()) ? Diagnostics::Outcome::Refused : Diagnostics::Outcome::Failed;
}

Error cancelledError()
{
    return ToolFailure::approvalDenied(); // a cancelled call sends nothing
}

} // namespace

ToolPipeline::ToolPipeline(BrowserProvider *provider, Approver &approver, EffectLedger *ledger,
                           Options options, QObject *parent)
    : QObject(parent), m_provider(provider), m_approvals(approver, options.approvalWaitMs, this),
      m_ledger(ledger), m_options(std::move(options)), m_authority({}),
      m_registry(ToolRegistry::forProvider(provider))
{
    m_options.context.providerBound = provider != nullptr;
    m_options.pins.policyVersion = m_options.settings.version();
    m_authority = ActAuthority(ActAuthority::Session{.settings = m_options.settings,
                                                     .context = m_options.context,
                                                     .owner = m_options.owner,
                                                     .pins = m_options.pins,
                                                     .taskGrants = m_options.taskGrants,
                                                     .standingGrants = m_options.standingGrants,
                                                     .standingGrant = m_options.standingGrant,
                                                     .purpose = m_options.purpose,
                                                     .actDeadlineMs = m_options.callDeadlineMs,
                                                     .overrides = m_options.overrides});
    m_deadline = new QTimer(this);
    m_deadline->setSingleShot(true);
    connect(m_deadline, &QTimer::timeout, this, &ToolPipeline::deadlinePassed);
    if (m_provider) {
        // dispatch_started is durable before the first input of an act reaches the page.
        // The ledger answers at once.
        m_provider->setDispatchGate(
            [this](const ActRequest &request, GateAnswer answer) {
                if (!m_gate || m_gate->opened ||
                    m_gate->argumentDigest != request.argumentDigest() || !m_ledger ||
                    !m_ledger->beginDispatch(m_gate->effect)) {
                    answer(false);
                    return;
                }
                m_gate->opened = true;
                answer(true);
            },
            this);
    }
}

ToolPipeline::~ToolPipeline()
{
    if (m_provider)
        m_provider->clearDispatchGate(this);
}

quint64 ToolPipeline::call(const QString &tool, const QJsonObject &arguments, Done done)
{
    auto call = std::make_shared<Call>();
    call->id = m_nextId++;
    call->tool = tool;
    call->arguments = arguments;
    call->done = std::move(done);
    m_queue.push_back(call);
    QTimer::singleShot(0, this, &ToolPipeline::runNext);
    return call->id;
}

void ToolPipeline::cancel(quint64 id)
{
    if (m_running && m_running->id == id) {
        m_running->cancelled = true;
        if (m_pendingApproval)
            m_approvals.cancel(m_pendingApproval); // ends as denied: nothing sent
        else if (m_gate && !m_gate->opened)
            m_gate.reset(); // at the provider, not dispatched: its gate now refuses
        return;
    }
    for (auto it = m_queue.begin(); it != m_queue.end(); ++it) {
        if ((*it)->id == id) {
            std::shared_ptr<Call> call = *it;
            m_queue.erase(it);
            call->clock.start();
            finish(call, cancelledError(), Phase::SessionAcquisition);
            return;
        }
    }
}

ObservationCallback
ToolPipeline::atProvider(const std::shared_ptr<Call> &call,
                         std::function<void(Result<BrowserObservation>)> handler)
{
    ++m_providerBusy;
    if (!m_deadline->isActive() && !call->finished)
        m_deadline->start(m_options.callDeadlineMs);
    QPointer<ToolPipeline> self(this);
    return [self, call, handler = std::move(handler)](Result<BrowserObservation> result) {
        if (!self)
            return;
        --self->m_providerBusy;
        if (call->finished) {
            // Too late: the call was answered at its deadline. The queue may move on now.
            QTimer::singleShot(0, self.data(), &ToolPipeline::runNext);
            return;
        }
        handler(std::move(result));
    };
}

void ToolPipeline::deadlinePassed()
{
    const std::shared_ptr<Call> call = m_running;
    if (!call || call->finished)
        return;
    if (call->tool == QLatin1String(BrowserTools::kNavigate) && !call->effect.isNull()) {
        // An approved navigation whose dispatch began: it may have reached the site.
        recordUncertain(call->effect);
        finish(call, Error::fromReason(ReasonCode::OutcomeUnknown), Phase::Navigation);
        return;
    }
    if (call->tool != QLatin1String(BrowserTools::kAct) || call->effect.isNull()) {
        finish(call, Error::fromReason(ReasonCode::ProviderUnavailable),
               call->tool == QLatin1String(BrowserTools::kNavigate) ? Phase::Navigation
                                                                    : Phase::ObservationProjection);
        return;
    }
    const bool gateOpened = call->actSettled || (m_gate && m_gate->opened);
    m_gate.reset(); // a gate asked from now on refuses: nothing more is sent for this call
    if (gateOpened) {
        recordUncertain(call->effect);
        finish(call, Error::fromReason(ReasonCode::OutcomeUnknown), Phase::Dispatch);
        return;
    }
    const Error error = Error::fromReason(ReasonCode::ProviderUnavailable);
    notSent(call->effect, error);
    finish(call, error, Phase::Dispatch);
}

void ToolPipeline::runNext()
{
    if (!m_provider)
        m_providerBusy = 0; // a provider that is gone answers nothing
    if (m_running || m_queue.empty() || m_providerBusy > 0)
        return;
    m_running = m_queue.front();
    m_queue.pop_front();
    const std::shared_ptr<Call> call = m_running; // finish() resets m_running
    start(call);
}

void ToolPipeline::start(const std::shared_ptr<Call> &call)
{
    call->clock.start();
    const ToolDescriptor *tool = m_registry.find(call->tool);
    if (!tool || !m_provider) {
        finish(call, ToolFailure::policyDenied(), Phase::Authorization);
        return;
    }
    if (call->tool == QLatin1String(BrowserTools::kNavigate))
        runNavigate(call);
    else if (call->tool == QLatin1String(BrowserTools::kObserve))
        runObserve(call);
    else
        runAct(call);
}

void ToolPipeline::runNavigate(const std::shared_ptr<Call> &call)
{
    const Result<NavigateRequest> parsed = BrowserTools::parseNavigate(call->arguments);
    if (!parsed) {
        finish(call, parsed.error(), Phase::Navigation);
        return;
    }
    NavigateRequest request = *parsed;
    // Judged like a link's target: an address whose query or path names a change to the site
    // (a token, an operation that writes, a sign-out, a write endpoint) is an act the owner
    // approves; a reading address needs nobody. An address the browser could not open at all
    // is left to it (tool.browser.url_disallowed, before any request).
    const bool writes =
        WriteGuard::judge({"GET", WriteGuard::RequestKind::Document, request.url, std::nullopt, {}})
            .verdict != WriteGuard::Verdict::Read;
    if (writes && PublicUrl::validate(request.url, m_options.overrides)) {
        approveNavigation(call, request);
        return;
    }
    // No approval stands behind it: the request stage judges every document it loads.
    request.guarded = true;
    m_provider->navigate(request, atProvider(call, [this, call](Result<BrowserObservation> result) {
                             finish(call, screenForSignIn(*call, std::move(result)),
                                    Phase::Navigation);
                         }));
}

void ToolPipeline::approveNavigation(const std::shared_ptr<Call> &call, NavigateRequest request)
{
    if (!m_ledger) {
        finish(call, ToolFailure::policyDenied(), Phase::Authorization);
        return;
    }
    const std::optional<QByteArray> canonical = CanonicalJson::serialize(call->arguments);
    if (!canonical) {
        finish(call, ToolArguments::invalidArguments(), Phase::Authorization);
        return;
    }
    const CurrentPage current = currentPage();
    const QByteArray digest = Sha256::digest(*canonical);
    const Result<QUuid> effect = m_ledger->prepare(
        EffectCall::forNavigation(request.url, digest, m_page ? m_page->revision : QString()));
    if (!effect) {
        finish(call, effect.error(), Phase::Authorization);
        return;
    }
    m_lastEffect = *effect;
    call->effect = *effect;
    call->approvalSource = QStringLiteral("none");
    const ApprovalBinding binding = ApprovalBinding::ofNavigation(digest, current);
    std::optional<PageFacts> from;
    if (m_page)
        from = PageFacts{m_page->url, m_page->title};
    QPointer<ToolPipeline> self(this);
    const QUuid effectId = *effect;
    m_pendingApproval = m_approvals.requestNavigation(
        ApprovalView::forNavigation(request.url, from), binding,
        [self] { return self ? self->currentPage() : CurrentPage{}; },
        whenApproved(call, effectId,
                     [this, call, request, binding, effectId](const ApprovalGrant &grant) {
                         dispatchNavigation(call, request, binding, effectId, grant);
                     }));
}

Approvals::GrantCallback
ToolPipeline::whenApproved(const std::shared_ptr<Call> &call, const QUuid &effect,
                           std::function<void(const ApprovalGrant &)> proceed)
{
    QPointer<ToolPipeline> self(this);
    return [self, call, effect, proceed = std::move(proceed)](Result<ApprovalGrant> grant) {
        if (!self)
            return;
        self->m_pendingApproval = 0;
        if (!grant || call->cancelled) {
            const Error error = grant ? cancelledError() : grant.error();
            self->notSent(effect, error);
            self->finish(call, error, Phase::Authorization);
            return;
        }
        proceed(*grant);
    };
}

void ToolPipeline::dispatchNavigation(const std::shared_ptr<Call> &call, NavigateRequest request,
                                      const ApprovalBinding &binding, const QUuid &effect,
                                      const ApprovalGrant &grant)
{
    // Consumed here, whatever happens next; the page must still be the one it was asked from.
    Result<Unit> ready = m_approvals.redeem(grant, binding, currentPage());
    if (ready)
        ready = m_ledger->authorize(effect, EffectAuthority::OwnerApproval);
    if (ready)
        ready = m_ledger->beginDispatch(effect); // durable before the first request can leave
    if (!ready) {
        notSent(effect, ready.error());
        finish(call, ready.error(), Phase::Authorization);
        return;
    }
    call->approvalSource = effectAuthorityString(EffectAuthority::OwnerApproval);
    call->diagnostics.record(Phase::Authorization, Placement::Pipeline,
                             Diagnostics::Outcome::Succeeded, FailureCategory::None,
                             call->clock.elapsed());
    request.guarded = false; // approved: its documents may write, once
    m_provider->navigate(
        request, atProvider(call, [this, call, effect](Result<BrowserObservation> result) {
            call->actSettled = true;
            if (result) {
                result = recordDispatched(effect, std::move(result));
            } else if (result.error().is(ReasonCode::UrlDisallowed) ||
                       result.error().is(ReasonCode::NavigationCancelled)) {
                // Refused before its request left (the origin policy, the page's beforeunload
                // answered "stay"): positive evidence that nothing was sent. Never sent again.
                if (m_ledger->markDispatched(effect))
                    (void)m_ledger->markObservedNotComplete(effect, result.error().code);
            } else {
                recordUncertain(effect);
                result = Error::fromReason(ReasonCode::OutcomeUnknown);
            }
            finish(call, screenForSignIn(*call, std::move(result)), Phase::Navigation);
        }));
}

void ToolPipeline::runObserve(const std::shared_ptr<Call> &call)
{
    const Result<ObserveRequest> request = ObserveRequest::fromJson(call->arguments);
    if (!request) {
        finish(call, request.error(), Phase::ObservationProjection);
        return;
    }
    ObserveTool::run(
        *m_provider, *request, atProvider(call, [this, call](Result<BrowserObservation> result) {
            finish(call, screenForSignIn(*call, std::move(result)), Phase::ObservationProjection);
        }));
}

bool ToolPipeline::showsSignIn(const BrowserObservation &observation) const
{
    return m_provider && observationShowsSignIn(*m_provider, observation);
}

Result<BrowserObservation> ToolPipeline::screenForSignIn(Call &call,
                                                         Result<BrowserObservation> result) const
{
    if (!result || !showsSignIn(*result))
        return result;
    call.signInPage = result->url;
    return ToolFailure::signInRequired();
}

CurrentPage ToolPipeline::currentPage() const
{
    if (!m_page)
        return CurrentPage{};
    return CurrentPage{m_page->revision, approvalOriginOf(m_page->url)};
}

void ToolPipeline::notSent(const QUuid &effect, const Error &error)
{
    if (!m_ledger || effect.isNull())
        return;
    // The refusal stands whether or not this write lands: nothing was sent, and a row left at
    // prepared or authorized is recovered as not_sent when the ledger is next opened.
    (void)m_ledger->markNotSent(effect, error.code);
}

void ToolPipeline::recordUncertain(const QUuid &effect)
{
    // The answer is outcome_unknown whether or not this write lands: a row left at
    // dispatch_started is recovered as outcome_unknown when the ledger is next opened.
    (void)m_ledger->markOutcomeUnknown(effect);
}

Result<BrowserObservation> ToolPipeline::recordDispatched(const QUuid &effect,
                                                          Result<BrowserObservation> result)
{
    // A settled act the ledger cannot record as dispatched stays at dispatch_started, which
    // the next open recovers as outcome_unknown; the call answers the same now, so the model
    // is never told more than the ledger will say.
    if (!m_ledger->markDispatched(effect)) {
        recordUncertain(effect);
        return Error::fromReason(ReasonCode::OutcomeUnknown);
    }
    return result;
}

void ToolPipeline::runAct(const std::shared_ptr<Call> &call)
{
    const Result<ActRequest> parsed = ActRequest::fromJson(call->arguments);
    if (!parsed) {
        finish(call, parsed.error(), Phase::Authorization);
        return;
    }
    const ToolDescriptor *tool = m_registry.find(call->tool);
    const PolicyDecision decision =
        ToolPolicy::decide(*tool, call->arguments, m_options.settings, m_options.context);
    if (decision == PolicyDecision::Deny || !m_ledger) {
        finish(call, ToolFailure::policyDenied(), Phase::Authorization);
        return;
    }
    const ActRequest request = *parsed;
    call->priorControl = m_lastActControl;
    call->actionKind = actKindString(request.kind());
    call->approvalSource = QStringLiteral("none");
    // The revision the act names must be the one last observed: anything else cannot have
    // been seen by the owner or the model now, and is refused before anyone is asked.
    if (!m_page || m_page->revision != request.expectedRevision()) {
        finish(call, Error::fromReason(ReasonCode::PageChanged), Phase::Authorization);
        return;
    }
    // A ref no observation of this revision named (forged, malformed, another revision's) is
    // refused the same way: no card is ever asked for an element that cannot exist.
    if (!m_refs.contains(request.ref())) {
        finish(call, Error::fromReason(ReasonCode::PageChanged), Phase::Authorization);
        return;
    }
    const Result<QUuid> effect = m_ledger->prepare(EffectCall::forAct(request, m_page->url));
    if (!effect) {
        finish(call, effect.error(), Phase::Authorization);
        return;
    }
    m_lastEffect = *effect;
    call->effect = *effect;
    if (decision == PolicyDecision::Allow) { // a permitted bounded scroll
        dispatchAct(call, request, *effect, std::nullopt);
        return;
    }
    const std::optional<ElementFacts> facts =
        m_provider->elementFacts(request.expectedRevision(), request.ref());
    call->targetRole = facts ? ApprovalView::roleWordFor(facts->role) : QString();
    call->control = facts ? controlKey(m_page->url, *facts) : QString();
    // A control whose last unapproved act tried to write goes to a card.
    const bool knownWrite = facts && m_knownWrites.contains(call->control);
    const PageFacts page{m_page->url, m_page->title};
    const ActAuthority::Decision authority = m_authority.decide(request, facts, page, knownWrite);
    if (authority.taskGrantUse && m_options.activity) {
        ActivityEvent event;
        event.kind = QStringLiteral("task_grant.used");
        event.at = QDateTime::currentDateTimeUtc();
        event.grant = authority.taskGrantUse->grant.id;
        event.ordinal = authority.taskGrantUse->ordinal;
        m_options.activity(event);
    }
    if (authority.runsWithoutCard()) {
        dispatchAct(call, request, *effect, std::nullopt, authority.constraint);
        return;
    }
    const std::optional<TaskGrantOffer> &offer = authority.offer;
    QPointer<ToolPipeline> self(this);
    const QUuid effectId = *effect;
    Approvals::TaskGrantMaker makeGrant;
    if (offer) {
        // approve_for_task: the grant is made in one unit of work with the approval, and
        // its created record keeps the view the owner approved (without typed text).
        const QJsonObject view = ApprovalView::build(request, page, facts).toAuditJson();
        makeGrant = [self, offer, effectId, view]() -> Result<Unit> {
            if (!self)
                return Error::fromReason(ReasonCode::ProviderUnavailable);
            const Result<TaskGrant> made = self->m_options.taskGrants->createTaskGrant(
                self->m_options.owner, self->m_options.pins, offer->scope, effectId, view);
            if (!made)
                return made.error();
            if (self->m_options.activity) {
                ActivityEvent event;
                event.kind = QStringLiteral("task_grant.created");
                event.at = QDateTime::currentDateTimeUtc();
                event.grant = made->id;
                event.origin = made->scope.origin().toString();
                event.pathSegment = made->scope.segment();
                if (isContentFree(event))
                    self->m_options.activity(event);
            }
            return Unit{};
        };
    }
    // What the guard saw when this control was tried leads the card.
    const auto refused = m_refusedRequests.constFind(call->control);
    const std::optional<ApprovalView::Refusal> refusal =
        refused == m_refusedRequests.cend()
            ? std::nullopt
            : std::optional<ApprovalView::Refusal>(
                  {*refused, m_savesOnItsOwn.contains(call->control)});
    QStringList notes;
    if (m_savesOnItsOwn.contains(call->control) && !refusal)
        notes.append(QString::fromLatin1(ApprovalView::kSiteSavesNote));
    m_pendingApproval = m_approvals.request(
        request, page, facts, [self] { return self ? self->currentPage() : CurrentPage{}; },
        whenApproved(call, effectId,
                     [this, call, request, effectId](const ApprovalGrant &grant) {
                         dispatchAct(call, request, effectId, grant);
                     }),
        offer, std::move(makeGrant), notes, refusal);
}

void ToolPipeline::recordActivity(const Call &call, const Result<BrowserObservation> &result,
                                  Diagnostics::Outcome outcome)
{
    if (!m_options.activity)
        return;
    ActivityEvent event;
    event.kind = QStringLiteral("tool.call");
    event.at = QDateTime::currentDateTimeUtc();
    event.tool = m_registry.find(call.tool) ? call.tool : QString();
    event.actionKind = call.actionKind;
    event.targetRole = call.targetRole;
    event.approvalSource = call.approvalSource;
    event.outcome = Diagnostics::outcomeString(outcome);
    if (!result)
        event.code = result.error().code;
    event.elapsedMs = call.clock.isValid() ? call.clock.elapsed() : -1;
    if (result)
        event.setPage(result->url);
    else if (call.signInPage)
        event.setPage(*call.signInPage);
    else if (m_page)
        event.setPage(m_page->url);
    // Only what the timeline may keep: a call that would carry anything else is recorded
    // without it.
    if (!isContentFree(event)) {
        event.code.clear();
        event.targetRole.clear();
    }
    if (isContentFree(event))
        m_options.activity(event);
    if (call.signInPage) {
        // The interruption itself, for the owner: which tool met it, where.
        ActivityEvent wall;
        wall.kind = QStringLiteral("sign_in.required");
        wall.at = event.at;
        wall.tool = event.tool;
        wall.code = reasonCodeString(ReasonCode::NeedsUser);
        wall.origin = event.origin;
        wall.pathSegment = event.pathSegment;
        if (isContentFree(wall))
            m_options.activity(wall);
    }
    if (result && call.tool != QLatin1String(BrowserTools::kAct)) {
        ActivityEvent observed;
        observed.kind = QStringLiteral("observation");
        observed.at = event.at;
        observed.origin = event.origin;
        observed.pathSegment = event.pathSegment;
        observed.elements = int(result->elements.size());
        observed.regions = int(result->regions.size());
        m_options.activity(observed);
    }
}

void ToolPipeline::dispatchAct(const std::shared_ptr<Call> &call, const ActRequest &request,
                               const QUuid &effect, const std::optional<ApprovalGrant> &grant,
                               const std::optional<DispatchConstraint> &constraint)
{
    if (grant) {
        // Consumed here, whatever happens next; the page must still be the approved one.
        const Result<Unit> redeemed = m_approvals.redeem(*grant, request, currentPage());
        if (!redeemed) {
            notSent(effect, redeemed.error());
            finish(call, redeemed.error(), Phase::Authorization);
            return;
        }
    }
    EffectAuthority authority = EffectAuthority::ScrollPermission;
    if (grant)
        authority = EffectAuthority::OwnerApproval;
    else if (constraint)
        switch (constraint->authority) {
        case DispatchConstraint::Authority::OrdinaryInteraction:
            authority = EffectAuthority::OrdinaryInteraction;
            break;
        case DispatchConstraint::Authority::TaskGrant:
            authority = EffectAuthority::TaskGrant;
            break;
        case DispatchConstraint::Authority::StandingGrant:
            authority = EffectAuthority::StandingGrant;
            break;
        }
    call->approvalSource = effectAuthorityString(authority);
    const Result<Unit> authorized = m_ledger->authorize(effect, authority);
    if (!authorized) {
        notSent(effect, authorized.error());
        finish(call, authorized.error(), Phase::Authorization);
        return;
    }
    call->diagnostics.record(Phase::Authorization, Placement::Pipeline,
                             Diagnostics::Outcome::Succeeded, FailureCategory::None,
                             call->clock.elapsed());
    m_gate = Gate{request.argumentDigest(), effect, false};
    ObservationCallback settled =
        atProvider(call, [this, call, request, effect](Result<BrowserObservation> result) {
            const bool dispatched = m_gate && m_gate->opened;
            m_gate.reset();
            if (dispatched && m_options.afterDispatchHook)
                m_options.afterDispatchHook();
            call->actSettled = dispatched;
            afterAct(call, request, effect, dispatched, std::move(result));
        });
    if (constraint)
        m_provider->actUnderConstraint(request, *constraint, std::move(settled));
    else
        m_provider->act(request, std::move(settled));
}

void ToolPipeline::afterAct(const std::shared_ptr<Call> &call, const ActRequest &request,
                            const QUuid &effect, bool dispatched, Result<BrowserObservation> result)
{
    if (!dispatched) {
        if (result && result->action && !result->action->dispatched) {
            // Nothing needed sending (a check already in the requested state).
            notSent(effect, Error{QStringLiteral("act.already_in_state"), QString()});
            finish(call, std::move(result), Phase::Dispatch);
            return;
        }
        // The provider refused before its gate: nothing reached the page.
        const Error error =
            result ? Error::fromReason(ReasonCode::ProviderUnavailable) : result.error();
        notSent(effect, error);
        finish(call, error, Phase::Dispatch);
        return;
    }
    if (!result && result.error().certainAfterDispatch() && !call->cancelled) {
        // The write guard refused every request of the act that could write: nothing that
        // could change the site reached it. The ledger closes the act as observed not
        // complete (its input did reach the page), and the control asks next time.
        (void)m_ledger->markObservedNotComplete(effect, result.error().code);
        if (!call->control.isEmpty() && m_knownWrites.size() < kMaxKnownWrites)
            m_knownWrites.insert(call->control);
        finish(call, result.error(), Phase::Dispatch);
        return;
    }
    if (!result || call->cancelled) {
        // Anything after the gate may have reached the site: uncertain, never resent. A call
        // cancelled after its dispatch started is uncertain too: nobody sees its evidence.
        recordUncertain(effect);
        finish(call, Error::fromReason(ReasonCode::OutcomeUnknown), Phase::Dispatch);
        return;
    }
    call->diagnostics.record(Phase::Dispatch, Placement::Pipeline, Diagnostics::Outcome::Succeeded,
                             FailureCategory::None, call->clock.elapsed());
    if (showsSignIn(*result)) {
        // Sent, and then the site asked to sign in: it proves nothing about the write. The
        // ledger keeps it outcome_unknown with the sign-in marker; it is never sent again.
        call->signInPage = result->url;
        (void)m_ledger->markOutcomeUnknown(effect, QString(ToolFailure::kSignInMarker));
        finish(call, ToolFailure::sentThenSignIn(), Phase::Dispatch);
        return;
    }
    if (!request.postcondition()) {
        finish(call, recordDispatched(effect, std::move(result)), Phase::Postcondition);
        return;
    }
    // The visible postcondition, read like browser.observe {wait_for}. It proves only what
    // was visible; an unmet one never proves the write was not sent. The call stays at
    // dispatch_started until the read is over, so a process that dies meanwhile leaves it
    // uncertain.
    m_page = Page{result->revision, result->url, result->title};
    ObserveTool::run(*m_provider, ObserveRequest::waitFor(*request.postcondition()),
                     atProvider(call, [this, call, effect](Result<BrowserObservation> observed) {
                         if (!observed || call->cancelled) { // dispatched, evidence lost
                             recordUncertain(effect);
                             observed = Error::fromReason(ReasonCode::OutcomeUnknown);
                         } else {
                             const bool satisfied =
                                 observed->waitFor &&
                                 observed->waitFor->status == WaitOutcome::Status::Satisfied;
                             observed = recordDispatched(effect, std::move(observed));
                             // Unrecorded, the visible evidence still stands: the ledger then
                             // says dispatched (completion not verified), never more.
                             if (observed && satisfied)
                                 (void)m_ledger->markObservedComplete(effect);
                         }
                         finish(call, std::move(observed), Phase::Postcondition);
                     }));
}

void ToolPipeline::finish(const std::shared_ptr<Call> &callRef, Result<BrowserObservation> result,
                          Phase lastPhase)
{
    const std::shared_ptr<Call> call = callRef; // the reference may be m_running itself
    if (call->finished)
        return;
    call->finished = true;
    if (m_running == call)
        m_deadline->stop();
    // The revision whose refs are current is the last one observed; a failure retires it,
    // except a refusal decided before any capture (the provider keeps its snapshot then).
    const bool act = call->tool == QLatin1String(BrowserTools::kAct);
    const QString lastControl = act ? call->priorControl : m_lastActControl;
    const std::optional<PageEvidence> evidence =
        result && m_provider ? m_provider->pageEvidence(result->revision) : std::nullopt;
    if (evidence)
        call->diagnostics.addStrangerRefusals(evidence->strangerRequestsRefused);
    if (result && m_provider && !lastControl.isEmpty()) {
        // The site saved on its own after the last act answered, and the guard refused it:
        // that control asks next time, and its card says the site may save by itself.
        if (evidence && evidence->lateWrites > 0 && m_knownWrites.size() < kMaxKnownWrites) {
            m_knownWrites.insert(lastControl);
            m_savesOnItsOwn.insert(lastControl);
        }
        if (evidence && evidence->refusedWrite && m_knownWrites.contains(lastControl) &&
            m_refusedRequests.size() < kMaxKnownWrites)
            m_refusedRequests.insert(lastControl, *evidence->refusedWrite);
    }
    if (act && call->actSettled && !call->control.isEmpty())
        m_lastActControl = call->control;
    else if (call->tool == QLatin1String(BrowserTools::kNavigate))
        m_lastActControl.clear(); // another page: its controls are other controls
    if (result) {
        if (!m_page || m_page->revision != result->revision)
            m_refs.clear();
        m_page = Page{result->revision, result->url, result->title};
        // Every ref the revision's observations named, continuation windows included.
        for (const ElementRecord &element : result->elements)
            m_refs.insert(element.ref);
        for (const RegionRecord &region : result->regions)
            m_refs.insert(region.ref);
    } else if (!isRefusal(result.error())) {
        m_page.reset();
        m_refs.clear();
    }
    const Diagnostics::Outcome outcome =
        call->cancelled ? Diagnostics::Outcome::Cancelled : outcomeOf(result);
    recordActivity(*call, result, outcome);
    const bool signInWall = call->signInPage.has_value() && !call->cancelled;
    if (signInWall && m_options.signInWall)
        m_options.signInWall();
    call->diagnostics.record(lastPhase,
                             lastPhase == Phase::Authorization    ? Placement::Pipeline
                             : m_options.context.isolatedProvider ? Placement::IsolatedHost
                                                                  : Placement::InProcess,
                             outcome, result ? FailureCategory::None : categoryOf(result.error()),
                             call->clock.elapsed());
    // The engine the call reached, when it reached the browser and the browser said.
    if (lastPhase != Phase::Authorization && m_provider)
        call->diagnostics.setEngine(m_provider->engineIdentity());
    Outcome out{std::move(result), call->diagnostics.finish(call->clock.elapsed()), signInWall};
    Done done = std::move(call->done);
    call->done = nullptr;
    if (m_running == call) {
        m_running.reset();
        QTimer::singleShot(0, this, &ToolPipeline::runNext);
    }
    if (done && !call->cancelled)
        done(std::move(out));
    else if (done)
        done(Outcome{cancelledError(), out.diagnostics});
}

} // namespace veetbot
