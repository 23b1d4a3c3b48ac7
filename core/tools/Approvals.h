#pragma once

#include "domain/Result.h"
#include "domain/action/ActRequest.h"
#include "domain/action/ApprovalView.h"
#include "ports/Approver.h"

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>
#include <optional>

class QTimer;

namespace veetbot {

// The provider's current page, read when the owner's answer arrives and again before
// dispatch: its revision and its origin.
struct CurrentPage
{
    QString revision;
    QString origin;
};

// What an approval is bound to: the exact arguments (their digest), the revision and ref
// they name, and the page origin ("https://host[:port]") the element was observed on.
struct ApprovalBinding
{
    QByteArray argumentDigest;
    QString revision;
    QString ref;
    QString origin;

    static ApprovalBinding of(const ActRequest &request, const QString &origin);
    // A browser.navigate call from the page at `current` (its revision and origin; empty
    // when there is none): the arguments' digest; no ref.
    static ApprovalBinding ofNavigation(const QByteArray &argumentDigest,
                                        const CurrentPage &current);
    friend bool operator==(const ApprovalBinding &, const ApprovalBinding &) = default;
};

// A granted approval: a handle that Approvals alone can redeem, once. Copying it does not
// copy the right: redemption removes the grant from Approvals.
struct ApprovalGrant
{
    quint64 id = 0;
    ApprovalBinding binding;
};

// The approval flow of browser.act: builds the approval view, asks the Approver, bounds the wait,
// and turns the answer into a single-use grant bound to (argument digest, revision, ref, origin).
//  - Declined, Cancelled, Failed and TimedOut, and a cancel() by the caller, are
//    tool.approval_denied.
//  - After an approving answer the page is revalidated: a revision or origin that moved
//    while the owner decided is tool.browser.page_changed, and no grant exists.
//  - redeem() consumes the grant on its first use, whatever the outcome. A grant for other
//    arguments, another ref or another revision is tool.approval_required (an approval never
//    carries over to another element); a page that moved since is tool.browser.page_changed.
// Never holds typed text beyond the view it passes to the approver.
class Approvals : public QObject
{
    Q_OBJECT
public:
    static constexpr int kDefaultWaitMs = 25'000;

    using GrantCallback = std::function<void(Result<ApprovalGrant>)>;
    using PageReader = std::function<CurrentPage()>;
    // Makes the offered task grant, in one unit of work, when the owner chose
    // approve_for_task; a failure leaves the question pending (asked again without the offer).
    using TaskGrantMaker = std::function<Result<Unit>()>;

    Approvals(Approver &approver, int waitLimitMs = kDefaultWaitMs, QObject *parent = nullptr);
    ~Approvals() override;

    // Asks about `request`, observed on `page` (whose revision is the request's expected
    // revision) with the element's private facts, if any. `currentPage` is read once when an
    // approving answer arrives. `done` runs exactly once, never from inside this call (unless
    // this object is destroyed first: then the question is withdrawn and `done` never runs).
    // Returns the id that cancel() takes.
    // With an offer, the question carries it; an ApprovedForTask answer then calls makeGrant
    // after the page is revalidated and before the single-use grant exists.
    // `notes`: fixed sentences the view adds (ApprovalView::kSiteSavesNote).
    quint64 request(const ActRequest &request, const PageFacts &page,
                    const std::optional<ElementFacts> &element, PageReader currentPage,
                    GrantCallback done, const std::optional<TaskGrantOffer> &offer = std::nullopt,
                    TaskGrantMaker makeGrant = {}, const QStringList &notes = {},
                    const std::optional<ApprovalView::Refusal> &refusal = std::nullopt);
    // Asks about a navigation to an address that changes the site (ApprovalView::
    // forNavigation), bound to `binding`: the same wait, answers and revalidation.
    quint64 requestNavigation(const ApprovalView &view, const ApprovalBinding &binding,
                              PageReader currentPage, GrantCallback done);
    // Withdraws a pending request (the tool call was cancelled): it ends as
    // tool.approval_denied and the approver's question is withdrawn.
    void cancel(quint64 id);

    // Just before dispatch: checks and consumes the grant for exactly this request on the
    // current page.
    Result<Unit> redeem(const ApprovalGrant &grant, const ActRequest &request,
                        const CurrentPage &current);
    // The same for a grant asked with requestNavigation().
    Result<Unit> redeem(const ApprovalGrant &grant, const ApprovalBinding &binding,
                        const CurrentPage &current);

    int pendingCount() const { return int(m_pending.size()); }
    int outstandingGrants() const { return int(m_granted.size()); }

private:
    struct Pending
    {
        ApprovalBinding binding;
        PageReader currentPage;
        GrantCallback done;
        QTimer *timer = nullptr;
        ApprovalRequest question;
        TaskGrantMaker makeGrant;
    };

    quint64 ask(ApprovalView view, ApprovalBinding binding, PageReader currentPage,
                GrantCallback done, const std::optional<TaskGrantOffer> &offer,
                TaskGrantMaker makeGrant);
    void ask(const ApprovalRequest &question);
    void settle(quint64 id, ApprovalAnswer answer);

    QPointer<Approver> m_approver;
    int m_waitLimitMs;
    quint64 m_nextId = 1;
    QHash<quint64, Pending> m_pending;
    QHash<quint64, ApprovalBinding> m_granted;
};

} // namespace veetbot
