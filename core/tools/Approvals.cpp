#include "Approvals.h"

#include "ToolFailure.h"

#include <QMetaObject>
#include <QTimer>

namespace veetbot {

ApprovalBinding ApprovalBinding::of(const ActRequest &request, const QString &origin)
{
    return ApprovalBinding{request.argumentDigest(), request.expectedRevision(), request.ref(),
                           origin};
}

ApprovalBinding ApprovalBinding::ofNavigation(const QByteArray &argumentDigest,
                                              const CurrentPage &current)
{
    return ApprovalBinding{argumentDigest, current.revision, QString(), current.origin};
}

Approvals::Approvals(Approver &approver, int waitLimitMs, QObject *parent)
    : QObject(parent), m_approver(&approver), m_waitLimitMs(waitLimitMs)
{
}

Approvals::~Approvals()
{
    // Withdraw every question still open; its callback must not run into a dead owner.
    const QList<quint64> ids = m_pending.keys();
    for (quint64 id : ids) {
        m_pending.remove(id); // the timers are children and go with this object
        if (m_approver)
            m_approver->cancel(id);
    }
}

quint64 Approvals::request(const ActRequest &request, const PageFacts &page,
                           const std::optional<ElementFacts> &element, PageReader currentPage,
                           GrantCallback done, const std::optional<TaskGrantOffer> &offer,
                           TaskGrantMaker makeGrant, const QStringList &notes,
                           const std::optional<ApprovalView::Refusal> &refusal)
{
    return ask(ApprovalView::build(request, page, element, notes, refusal),
               ApprovalBinding::of(request, approvalOriginOf(page.url)), std::move(currentPage),
               std::move(done), offer, std::move(makeGrant));
}

quint64 Approvals::requestNavigation(const ApprovalView &view, const ApprovalBinding &binding,
                                     PageReader currentPage, GrantCallback done)
{
    return ask(view, binding, std::move(currentPage), std::move(done), std::nullopt, {});
}

quint64 Approvals::ask(ApprovalView view, ApprovalBinding binding, PageReader currentPage,
                       GrantCallback done, const std::optional<TaskGrantOffer> &offer,
                       TaskGrantMaker makeGrant)
{
    const quint64 id = m_nextId++;
    const ApprovalRequest question{id, std::move(view), makeGrant ? offer : std::nullopt,
                                   QString()};
    Pending pending{std::move(binding), std::move(currentPage), std::move(done), new QTimer(this),
                    question,           std::move(makeGrant)};
    pending.timer->setSingleShot(true);
    connect(pending.timer, &QTimer::timeout, this, [this, id] {
        if (m_approver)
            m_approver->cancel(id);
        settle(id, ApprovalAnswer::TimedOut);
    });
    pending.timer->start(m_waitLimitMs);
    m_pending.emplace(id, std::move(pending));

    if (!m_approver) {
        QMetaObject::invokeMethod(
            this, [this, id] { settle(id, ApprovalAnswer::Failed); }, Qt::QueuedConnection);
        return id;
    }
    ask(question);
    return id;
}

void Approvals::ask(const ApprovalRequest &question)
{
    QPointer<Approvals> self(this);
    const quint64 id = question.id;
    m_approver->requestApproval(question, [self, id](ApprovalAnswer answer) {
        // Settled from the event loop even if an approver answers inside requestApproval().
        if (self)
            QMetaObject::invokeMethod(
                self, [self, id, answer] { self->settle(id, answer); }, Qt::QueuedConnection);
    });
}

void Approvals::cancel(quint64 id)
{
    if (!m_pending.contains(id))
        return;
    if (m_approver)
        m_approver->cancel(id);
    settle(id, ApprovalAnswer::Cancelled);
}

void Approvals::settle(quint64 id, ApprovalAnswer answer)
{
    // The first answer wins; a late or repeated one finds nothing pending.
    auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    const bool forTask = answer == ApprovalAnswer::ApprovedForTask &&
                         it->question.offer.has_value() && it->makeGrant;
    if (forTask) {
        // Revalidate first: a page that moved makes neither the approval nor the grant.
        const CurrentPage current = it->currentPage ? it->currentPage() : CurrentPage{};
        const bool samePage =
            current.revision == it->binding.revision && current.origin == it->binding.origin;
        if (samePage) {
            const Result<Unit> made = it->makeGrant();
            if (!made) {
                // No grant, so no approval either: the question stays pending and is asked
                // again, without the offer, saying why.
                if (!m_approver) {
                    answer = ApprovalAnswer::Failed;
                } else {
                    it->question.offer.reset();
                    it->question.offerRefused = made.error().code;
                    ask(it->question);
                    return;
                }
            }
        }
    }
    Pending pending = std::move(it.value());
    m_pending.erase(it);
    pending.timer->stop();
    pending.timer->deleteLater(); // settle() may run from this timer's own signal

    if (!approves(answer)) {
        pending.done(ToolFailure::approvalDenied());
        return;
    }
    // Revalidate after the wait: the owner approved what the page was when asked.
    const CurrentPage current = pending.currentPage ? pending.currentPage() : CurrentPage{};
    if (current.revision != pending.binding.revision || current.origin != pending.binding.origin) {
        pending.done(Error::fromReason(ReasonCode::PageChanged));
        return;
    }
    m_granted.insert(id, pending.binding);
    pending.done(ApprovalGrant{id, pending.binding});
}

Result<Unit> Approvals::redeem(const ApprovalGrant &grant, const ActRequest &request,
                               const CurrentPage &current)
{
    return redeem(grant, ApprovalBinding::of(request, grant.binding.origin), current);
}

Result<Unit> Approvals::redeem(const ApprovalGrant &grant, const ApprovalBinding &binding,
                               const CurrentPage &current)
{
    // Single use: the grant is gone after this call, whatever it answers.
    const auto it = m_granted.constFind(grant.id);
    if (it == m_granted.constEnd())
        return ToolFailure::approvalRequired();
    const ApprovalBinding bound = it.value();
    m_granted.erase(it);
    // An approval never carries over to other arguments, another ref or another revision.
    if (!(grant.binding == bound) || binding.argumentDigest != bound.argumentDigest ||
        binding.revision != bound.revision || binding.ref != bound.ref)
        return ToolFailure::approvalRequired();
    if (current.revision != bound.revision || current.origin != bound.origin)
        return Error::fromReason(ReasonCode::PageChanged);
    return Unit{};
}

} // namespace veetbot
