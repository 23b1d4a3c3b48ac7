#include "Approvers.h"

#include <QMetaObject>

namespace veetbot {

namespace {
// Runs the callback from the event loop, never from inside requestApproval().
void answerLater(QObject *context, Approver::AnswerCallback done, ApprovalAnswer answer)
{
    QMetaObject::invokeMethod(
        context, [done = std::move(done), answer] { done(answer); }, Qt::QueuedConnection);
}

constexpr qsizetype kMaxAnswerLineBytes = 64;
} // namespace

void DenyApprover::requestApproval(const ApprovalRequest &, AnswerCallback done)
{
    answerLater(this, std::move(done), ApprovalAnswer::Declined);
}

void DenyApprover::cancel(quint64) {}

void ScriptedApprover::requestApproval(const ApprovalRequest &request, AnswerCallback done)
{
    m_requests.append(request);
    if (!m_script.isEmpty()) {
        answerLater(this, std::move(done), m_script.takeFirst());
        return;
    }
    m_pending.append({request.id, std::move(done)});
}

void ScriptedApprover::cancel(quint64 id)
{
    for (qsizetype i = 0; i < m_pending.size(); ++i) {
        if (m_pending[i].first == id) {
            AnswerCallback done = std::move(m_pending[i].second);
            m_pending.removeAt(i);
            answerLater(this, std::move(done), ApprovalAnswer::Cancelled);
            return;
        }
    }
}

bool ScriptedApprover::answerPending(ApprovalAnswer answer)
{
    if (m_pending.isEmpty())
        return false;
    AnswerCallback done = std::move(m_pending.first().second);
    m_pending.removeFirst();
    answerLater(this, std::move(done), answer);
    return true;
}

TerminalApprover::TerminalApprover(QIODevice *in, QIODevice *out, QObject *parent)
    : Approver(parent), m_in(in), m_out(out)
{
    if (m_in) {
        connect(m_in, &QIODevice::readyRead, this, &TerminalApprover::readAnswer);
        connect(m_in, &QIODevice::readChannelFinished, this, [this] {
            readAnswer();
            finish(ApprovalAnswer::Failed); // the input ended without a full answer line
        });
        connect(m_in, &QIODevice::aboutToClose, this, [this] { finish(ApprovalAnswer::Failed); });
    }
}

void TerminalApprover::requestApproval(const ApprovalRequest &request, AnswerCallback done)
{
    if (m_pending || !m_in || !m_out || !m_in->isReadable() || !m_out->isWritable()) {
        answerLater(this, std::move(done), ApprovalAnswer::Failed);
        return;
    }
    m_pendingId = request.id;
    m_pending = std::move(done);
    m_line.clear();
    m_offered = request.offer.has_value();
    QString text = QStringLiteral("\nApproval needed:\n") + request.view.toText();
    if (!request.offerRefused.isEmpty())
        text += QStringLiteral("\nNo task grant could be made (%1); approve once or deny.")
                    .arg(request.offerRefused);
    if (request.offer)
        text += u'\n' + request.offer->toText() + QStringLiteral("\nApprove? [y/N/t] ");
    else
        text += QStringLiteral("\nApprove? [y/N] ");
    const QByteArray prompt = text.toUtf8();
    if (m_out->write(prompt) != prompt.size()) {
        finish(ApprovalAnswer::Failed);
        return;
    }
    // Input that is already there (typed ahead, or a buffer in tests) is read from the loop.
    QMetaObject::invokeMethod(this, &TerminalApprover::readAnswer, Qt::QueuedConnection);
}

void TerminalApprover::cancel(quint64 id)
{
    if (!m_pending || id != m_pendingId)
        return;
    if (m_out)
        m_out->write(QByteArrayLiteral("\n(approval request withdrawn)\n"));
    finish(ApprovalAnswer::Cancelled);
}

void TerminalApprover::readAnswer()
{
    if (!m_pending || !m_in)
        return;
    while (m_in->bytesAvailable() > 0 || m_in->canReadLine()) {
        char c = 0;
        if (!m_in->getChar(&c))
            break;
        if (c == '\n') {
            const QByteArray answer = m_line.trimmed().toLower();
            if (m_offered && (answer == "t" || answer == "task"))
                finish(ApprovalAnswer::ApprovedForTask);
            else
                finish(answer == "y" || answer == "yes" ? ApprovalAnswer::Approved
                                                        : ApprovalAnswer::Declined);
            return;
        }
        if (m_line.size() >= kMaxAnswerLineBytes) {
            finish(ApprovalAnswer::Declined); // no answer is that long
            return;
        }
        m_line.append(c);
    }
    // A file or buffer that has nothing more will never answer; a pipe or socket may still,
    // until it reports the end of its read channel.
    if (!m_in->isOpen() || (!m_in->isSequential() && m_in->atEnd()))
        finish(ApprovalAnswer::Failed);
}

void TerminalApprover::finish(ApprovalAnswer answer)
{
    if (!m_pending)
        return;
    AnswerCallback done = std::move(m_pending);
    m_pending = nullptr;
    m_pendingId = 0;
    m_line.clear();
    answerLater(this, std::move(done), answer);
}

} // namespace veetbot
