#include "RecipeRunner.h"

#include "domain/ReasonCode.h"
#include "domain/observation/ObserveRequest.h"
#include "ledger/EffectLedger.h"
#include "tools/ToolRegistry.h"

#include <QJsonArray>

namespace veetbot {

namespace {

bool failedWith(const ToolPipeline::Outcome &outcome, ReasonCode reason)
{
    return !outcome.result && outcome.result.error().code == reasonCodeString(reason);
}

bool isSignInWall(const ToolPipeline::Outcome &outcome)
{
    return outcome.signInWall || failedWith(outcome, ReasonCode::AuthenticationRequired) ||
           failedWith(outcome, ReasonCode::NeedsUser);
}

// A row's cells as one line of the report.
QString rowLine(const ExtractionRow &row)
{
    QStringList cells;
    for (const ExtractionCell &cell : row.cells) {
        if (cell.status != ExtractionCell::Status::Ok)
            cells << QStringLiteral("?");
        else if (cell.value.isString())
            cells << cell.value.toString();
        else if (cell.value.isBool())
            cells << (cell.value.toBool() ? QStringLiteral("yes") : QStringLiteral("no"));
        else
            cells << QString::number(cell.value.toDouble(), 'g', 15);
    }
    return QStringLiteral("- ") + cells.join(QStringLiteral(" | "));
}

} // namespace

RecipeRunner::RecipeRunner(ToolPipeline &pipeline, Options options, QObject *parent)
    : RunDriver(parent), m_pipeline(pipeline), m_options(std::move(options))
{
    m_deadline.setSingleShot(true);
    connect(&m_deadline, &QTimer::timeout, this,
            [this] { stop(RunStatus::Failed, stopCode("deadline")); });
}

void RecipeRunner::start()
{
    if (m_started)
        return;
    m_started = true;
    m_report << m_options.recipe.title;
    m_deadline.start(m_options.recipe.deadlineSeconds * 1000);
    QTimer::singleShot(0, this, &RecipeRunner::nextStep);
}

void RecipeRunner::setPhase(const QString &phase)
{
    if (m_options.status)
        m_options.status(m_usage, phase);
}

void RecipeRunner::saveProgress()
{
    if (m_options.progress)
        m_options.progress(m_usage, outcome());
}

bool RecipeRunner::call(const QString &tool, const QJsonObject &arguments, Done done, bool act)
{
    if (m_usage.toolCalls >= Recipe::kMaxCalls) {
        finish(RunStatus::Failed, stopCode("calls"));
        return false;
    }
    ++m_usage.toolCalls;
    ++m_usage.steps;
    m_inflightAct = act;
    m_effectBefore = m_pipeline.lastEffectId();
    m_inflightCall = m_pipeline.call(tool, arguments,
                                     [this, done = std::move(done)](ToolPipeline::Outcome outcome) {
                                         m_inflightCall = 0;
                                         m_inflightAct = false;
                                         if (m_done)
                                             return;
                                         if (outcome.result) {
                                             m_lastPage = outcome.result->url;
                                             m_lastRevision = outcome.result->revision;
                                         }
                                         done(std::move(outcome));
                                     });
    return true;
}

void RecipeRunner::page(const QString &tool, const QJsonObject &arguments,
                        std::function<void(const BrowserObservation &)> then)
{
    call(tool, arguments, [this, then = std::move(then)](ToolPipeline::Outcome outcome) {
        if (!outcome.result || outcome.signInWall) {
            stopOn(outcome);
            return;
        }
        ++m_observations;
        if (onOrigin(*outcome.result))
            then(*outcome.result);
    });
}

QStringList RecipeRunner::refsOf(const BrowserObservation &page, const RecipeTarget &target)
{
    QStringList refs;
    for (const ElementRecord &element : page.elements) {
        if (element.role == target.role && element.name == target.name)
            refs << element.ref;
    }
    return refs;
}

void RecipeRunner::nextStep()
{
    if (m_done)
        return;
    saveProgress();
    if (++m_step >= m_options.recipe.steps.size()) {
        finish(RunStatus::Completed, QString());
        return;
    }
    const RecipeStep &step = m_options.recipe.steps.at(m_step);
    switch (step.kind) {
    case RecipeStep::Kind::Navigate:
        navigate(step);
        return;
    case RecipeStep::Kind::Observe:
        observe();
        return;
    case RecipeStep::Kind::Extract:
        extract(step, false, [this] { stepDone(); });
        return;
    case RecipeStep::Kind::Collect:
        collect(step, 1);
        return;
    case RecipeStep::Kind::Act:
        act(step, 0);
        return;
    }
}

void RecipeRunner::stepDone()
{
    // Never recursive: the next step starts from the event loop.
    QTimer::singleShot(0, this, &RecipeRunner::nextStep);
}

bool RecipeRunner::onOrigin(const BrowserObservation &page)
{
    if (page.url.scheme() == QLatin1String("https") &&
        page.url.host(QUrl::EncodeUnicode).toLower() == m_options.origin.host() &&
        page.url.port(443) == m_options.origin.port())
        return true;
    finish(RunStatus::Failed, stopCode("left_origin"));
    return false;
}

void RecipeRunner::stopOn(const ToolPipeline::Outcome &outcome)
{
    if (isSignInWall(outcome)) {
        finish(RunStatus::NeedsUser, outcome.result ? reasonCodeString(ReasonCode::NeedsUser)
                                                    : outcome.result.error().code);
        return;
    }
    finish(RunStatus::Failed, outcome.result ? QString() : outcome.result.error().code);
}

void RecipeRunner::navigate(const RecipeStep &step)
{
    setPhase(QStringLiteral("navigate"));
    const QUrl url = Recipe::urlOf(step, m_options.origin);
    page(QString(BrowserTools::kNavigate),
         QJsonObject{{QStringLiteral("url"), url.toString(QUrl::FullyEncoded)}},
         [this](const BrowserObservation &) { stepDone(); });
}

void RecipeRunner::observe()
{
    setPhase(QStringLiteral("observe"));
    page(QString(BrowserTools::kObserve), QJsonObject(),
         [this](const BrowserObservation &) { stepDone(); });
}

void RecipeRunner::extract(const RecipeStep &step, bool fresh, std::function<void()> then)
{
    setPhase(QStringLiteral("extract"));
    // The rows of the page as last seen; when it is not known, or it changed since, a fresh
    // look first (once).
    if (m_lastRevision.isEmpty()) {
        page(QString(BrowserTools::kObserve), QJsonObject(),
             [this, step, then](const BrowserObservation &) { extract(step, true, then); });
        return;
    }
    ExtractRequest request = step.extract;
    request.revision = m_lastRevision;
    call(QString(BrowserTools::kObserve), ObserveRequest::extract(request).toJson(),
         [this, step, fresh, then](ToolPipeline::Outcome outcome) {
             if (!fresh && failedWith(outcome, ReasonCode::PageChanged)) {
                 m_lastRevision.clear();
                 extract(step, true, then);
                 return;
             }
             if (!outcome.result || outcome.signInWall) {
                 stopOn(outcome);
                 return;
             }
             ++m_observations;
             if (!onOrigin(*outcome.result))
                 return;
             if (outcome.result->extraction) {
                 for (const ExtractionRow &row : outcome.result->extraction->rows)
                     m_report << rowLine(row);
             }
             then();
         });
}

void RecipeRunner::collect(const RecipeStep &step, int page)
{
    extract(step, false, [this, step, page] {
        if (page >= step.pages) {
            stepDone(); // the bound: pages after it are not read
            return;
        }
        nextPage(step, page, 0);
    });
}

void RecipeRunner::nextPage(const RecipeStep &step, int page, int attempt)
{
    setPhase(QStringLiteral("observe"));
    this->page(
        QString(BrowserTools::kObserve), QJsonObject(),
        [this, step, page, attempt](const BrowserObservation &seen) {
            const QStringList refs = refsOf(seen, step.target);
            if (refs.isEmpty()) { // the last page: the collection is complete
                stepDone();
                return;
            }
            if (refs.size() > 1) {
                finish(RunStatus::Failed, stopCode("target_ambiguous"));
                return;
            }
            const veetbot::Result<ActRequest> click =
                ActRequest::click(seen.revision, refs.constFirst());
            if (!click) {
                finish(RunStatus::Failed, click.error().code);
                return;
            }
            if (attempt == 0)
                ++m_actsTried;
            const QUrl before = seen.url;
            setPhase(QStringLiteral("act (may wait for approval)"));
            call(
                QString(BrowserTools::kAct), click->toJson(),
                [this, step, page, attempt, before](ToolPipeline::Outcome acted) {
                    if (!acted.result) {
                        if (failedWith(acted, ReasonCode::OutcomeUnknown)) {
                            ++m_uncertain; // never sent again; a link proves nothing after it
                            finish(acted.signInWall ? RunStatus::NeedsUser : RunStatus::Failed,
                                   acted.signInWall ? reasonCodeString(ReasonCode::NeedsUser)
                                                    : stopCode("outcome_unverified"));
                            return;
                        }
                        if (failedWith(acted, ReasonCode::PageChanged) && attempt == 0) {
                            ++m_usage.staleRecoveries;
                            nextPage(step, page, 1);
                            return;
                        }
                        stopOn(acted);
                        return;
                    }
                    ++m_usage.acts;
                    if (!onOrigin(*acted.result))
                        return;
                    // Its postcondition: another page. One that stays where it was would be
                    // read again and again.
                    if (acted.result->url == before) {
                        finish(RunStatus::Failed, stopCode("postcondition_unmet"));
                        return;
                    }
                    ++m_actsVerified;
                    collect(step, page + 1);
                },
                true);
        });
}

void RecipeRunner::act(const RecipeStep &step, int attempt)
{
    setPhase(QStringLiteral("observe"));
    page(QString(BrowserTools::kObserve), QJsonObject(),
         [this, step, attempt](const BrowserObservation &seen) { sendAct(step, seen, attempt); });
}

void RecipeRunner::sendAct(const RecipeStep &step, const BrowserObservation &page, int attempt)
{
    // Exactly one control of the role and exact name on the page as it is now. (A first window
    // of a long page may not hold it: the recipe is written for pages that show it.)
    const QStringList refs = refsOf(page, step.target);
    if (refs.isEmpty()) {
        finish(RunStatus::Failed, stopCode("target_not_found"));
        return;
    }
    if (refs.size() > 1) {
        finish(RunStatus::Failed, stopCode("target_ambiguous"));
        return;
    }
    const veetbot::Result<ActRequest> request = step.actOn(page.revision, refs.constFirst());
    if (!request) {
        finish(RunStatus::Failed, request.error().code);
        return;
    }
    if (attempt == 0)
        ++m_actsTried;
    setPhase(QStringLiteral("act (may wait for approval)"));
    call(
        QString(BrowserTools::kAct), request->toJson(),
        [this, step, attempt](ToolPipeline::Outcome outcome) {
            onActed(step, attempt, std::move(outcome));
        },
        true);
}

void RecipeRunner::onActed(const RecipeStep &step, int attempt, ToolPipeline::Outcome outcome)
{
    if (!outcome.result) {
        if (failedWith(outcome, ReasonCode::OutcomeUnknown)) {
            // It may have reached the site: never sent again. Sent before the page asked to
            // sign in, too.
            ++m_uncertain;
            if (outcome.signInWall) {
                finish(RunStatus::NeedsUser, reasonCodeString(ReasonCode::NeedsUser));
                return;
            }
            reconcile(step, m_lastPage);
            return;
        }
        if (isSignInWall(outcome)) {
            stopOn(outcome);
            return;
        }
        // Refused before anything was sent: once more on the page as it is now. After the
        // write guard, the same control asks a card (the pipeline knows it writes).
        const bool retry = failedWith(outcome, ReasonCode::PageChanged) ||
                           failedWith(outcome, ReasonCode::WriteRequiresApproval);
        if (retry && attempt == 0) {
            if (failedWith(outcome, ReasonCode::PageChanged))
                ++m_usage.staleRecoveries;
            act(step, 1);
            return;
        }
        stopOn(outcome);
        return;
    }
    ++m_usage.acts;
    const BrowserObservation &page = *outcome.result;
    if (!onOrigin(page))
        return;
    const bool controlSeen =
        step.control && page.waitFor && page.waitFor->status == WaitOutcome::Status::Satisfied;
    if (controlSeen || (step.completion && postconditionHolds(step, page))) {
        ++m_actsVerified;
        stepDone();
        return;
    }
    readPostcondition(step, kPostconditionReads);
}

bool RecipeRunner::postconditionHolds(const RecipeStep &step, const BrowserObservation &page) const
{
    if (step.completion)
        return step.completion->read(page) == CompletionPredicate::Reading::Satisfied;
    if (!step.control)
        return false;
    int matching = 0;
    bool holds = false;
    for (const ElementRecord &element : page.elements) {
        if (!step.control->matchesRoleAndName(element))
            continue;
        ++matching;
        holds = step.control->matchesState(element);
    }
    return matching == 1 && holds;
}

void RecipeRunner::readPostcondition(const RecipeStep &step, int readsLeft)
{
    if (m_done)
        return;
    if (readsLeft <= 0) {
        finish(RunStatus::Failed, stopCode("postcondition_unmet"));
        return;
    }
    setPhase(QStringLiteral("observe (postcondition)"));
    call(QString(BrowserTools::kObserve), QJsonObject(),
         [this, step, readsLeft](ToolPipeline::Outcome outcome) {
             if (isSignInWall(outcome)) {
                 stopOn(outcome);
                 return;
             }
             // A read that fails (the page is between documents) is one read of the few.
             if (outcome.result) {
                 ++m_observations;
                 if (!onOrigin(*outcome.result))
                     return;
                 if (postconditionHolds(step, *outcome.result)) {
                     ++m_actsVerified;
                     stepDone();
                     return;
                 }
             }
             QTimer::singleShot(kPostconditionReadIntervalMs, this, [this, step, readsLeft] {
                 readPostcondition(step, readsLeft - 1);
             });
         });
}

void RecipeRunner::reconcile(const RecipeStep &step, const QUrl &actPage)
{
    setPhase(QStringLiteral("observe (reconciliation)"));
    const auto judge = [this, step](const ToolPipeline::Outcome &outcome) {
        if (outcome.result)
            ++m_observations;
        const bool seen = outcome.result && postconditionHolds(step, *outcome.result);
        finish(seen ? RunStatus::Completed : RunStatus::Failed,
               seen ? stopCode("uncertain_act_verified") : stopCode("outcome_unverified"));
    };
    // The page as it is; when it cannot be read (an error page after a lost answer), the act's
    // page again by a read-only load.
    call(QString(BrowserTools::kObserve), QJsonObject(),
         [this, judge, actPage](ToolPipeline::Outcome outcome) {
             if (outcome.result || !actPage.isValid() || actPage.isEmpty()) {
                 judge(outcome);
                 return;
             }
             call(QString(BrowserTools::kNavigate),
                  QJsonObject{{QStringLiteral("url"), actPage.toString(QUrl::FullyEncoded)}},
                  judge);
         });
}

void RecipeRunner::cancel()
{
    stop(RunStatus::Cancelled, QStringLiteral("run.cancelled"));
}

void RecipeRunner::stop(RunStatus status, const QString &code)
{
    if (m_done)
        return;
    if (m_inflightCall) {
        const quint64 id = m_inflightCall;
        m_inflightCall = 0;
        // An act that got as far as its ledger record: the ledger says whether it may have
        // been sent.
        if (m_inflightAct && m_options.ledger) {
            const QUuid effect = m_pipeline.lastEffectId();
            if (effect != m_effectBefore && !effect.isNull()) {
                const auto before = m_options.ledger->record(effect);
                const bool mayHaveBeenSent = !before || (before->state != EffectState::Prepared &&
                                                         before->state != EffectState::Authorized &&
                                                         before->state != EffectState::NotSent);
                m_pipeline.cancel(id);
                const auto after = m_options.ledger->record(effect);
                if (mayHaveBeenSent || !after || after->state != EffectState::NotSent)
                    ++m_uncertain;
                m_inflightAct = false;
                finish(status, code);
                return;
            }
        }
        m_pipeline.cancel(id);
    }
    m_inflightAct = false;
    finish(status, code);
}

RunOutcome RecipeRunner::outcome() const
{
    if (m_uncertain > 0)
        return RunOutcome::OutcomeUnknown;
    if (m_actsTried == 0)
        return m_observations > 0 ? RunOutcome::ReadOnly : RunOutcome::None;
    return m_actsVerified == m_actsTried ? RunOutcome::Verified : RunOutcome::Unverified;
}

void RecipeRunner::finish(RunStatus status, const QString &stopCode)
{
    if (m_done)
        return;
    m_done = true;
    m_deadline.stop();
    if (m_inflightCall) {
        m_pipeline.cancel(m_inflightCall);
        m_inflightCall = 0;
    }
    Result result;
    result.status = status;
    result.outcome = outcome();
    result.evidence = m_uncertain == 0 && m_actsTried > 0 && m_actsVerified == m_actsTried
                          ? Evidence::PredicateSeen
                          : Evidence::None;
    result.stopCode = stopCode;
    result.usage = m_usage;
    result.uncertainActs = m_uncertain;
    if (status == RunStatus::Completed)
        result.answer = m_report.join(u'\n');
    saveProgress();
    QTimer::singleShot(0, this, [this, result] { Q_EMIT finished(result); });
}

} // namespace veetbot
