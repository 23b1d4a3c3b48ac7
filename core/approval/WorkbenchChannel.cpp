#include "WorkbenchChannel.h"

#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QTimer>

namespace veetbot {

namespace {

QString answerString(ApprovalAnswer answer)
{
    switch (answer) {
    case ApprovalAnswer::Approved:
        return QStringLiteral("approved");
    case ApprovalAnswer::ApprovedForTask:
        return QStringLiteral("approved_for_task");
    default:
        return QStringLiteral("denied");
    }
}

// One complete line as a JSON object, or nullopt (malformed, or not an object).
std::optional<QJsonObject> parseLine(const QByteArray &line)
{
    QJsonParseError error;
    const QJsonDocument document = QJsonDocument::fromJson(line, &error);
    if (error.error != QJsonParseError::NoError || !document.isObject())
        return std::nullopt;
    return document.object();
}

QByteArray lineOf(const QJsonObject &message)
{
    return QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n';
}

// A question's id: a positive integer that fits a JSON number exactly.
std::optional<quint64> idOf(const QJsonValue &value)
{
    const double number = value.toDouble(-1);
    if (!value.isDouble() || number < 1 || number > 9007199254740991.0 ||
        number != double(quint64(number)))
        return std::nullopt;
    return quint64(number);
}

} // namespace

QString WorkbenchChannel::socketPath(const QString &runtimeDirectory)
{
    return runtimeDirectory + QStringLiteral("/approvals.sock");
}

// ---- the agent's side -----------------------------------------------------------------------

WorkbenchApprover::WorkbenchApprover(QString socketPath, QObject *parent)
    : Approver(parent), m_path(std::move(socketPath)), m_socket(new QLocalSocket(this))
{
    m_socket->setReadBufferSize(WorkbenchChannel::kMaxLineBytes * 2);
    connect(m_socket, &QLocalSocket::readyRead, this, &WorkbenchApprover::readAnswers);
    connect(m_socket, &QLocalSocket::disconnected, this, &WorkbenchApprover::failAll);
    connect(m_socket, &QLocalSocket::errorOccurred, this, &WorkbenchApprover::failAll);
}

WorkbenchApprover::~WorkbenchApprover()
{
    m_socket->disconnect(this);
}

bool WorkbenchApprover::connectToWorkbench(int timeoutMs)
{
    if (isConnected())
        return true;
    m_socket->connectToServer(m_path);
    return m_socket->waitForConnected(timeoutMs);
}

bool WorkbenchApprover::isConnected() const
{
    return m_socket->state() == QLocalSocket::ConnectedState;
}

bool WorkbenchApprover::send(const QJsonObject &message)
{
    const QByteArray line = lineOf(message);
    return isConnected() && line.size() <= WorkbenchChannel::kMaxLineBytes &&
           m_socket->write(line) == line.size();
}

void WorkbenchApprover::requestApproval(const ApprovalRequest &request, AnswerCallback done)
{
    const quint64 id = request.id;
    m_pending.emplace(id, std::move(done));
    if (!isConnected()) // a workbench started (or restarted) since
        (void)connectToWorkbench(1000);
    QJsonObject ask{{QStringLiteral("id"), double(id)},
                    {QStringLiteral("view"), request.view.toJson()}};
    if (request.offer)
        ask.insert(QStringLiteral("offer"), request.offer->toJson());
    if (!request.offerRefused.isEmpty())
        ask.insert(QStringLiteral("offer_refused"), request.offerRefused);
    if (!send(QJsonObject{{QStringLiteral("ask"), ask}})) {
        // No workbench, or it went away: denied, from the event loop.
        ++m_unanswered;
        QTimer::singleShot(0, this, [this, id] { settle(id, ApprovalAnswer::Failed); });
    }
}

void WorkbenchApprover::cancel(quint64 id)
{
    if (!m_pending.contains(id))
        return;
    (void)send(
        QJsonObject{{QStringLiteral("cancel"), QJsonObject{{QStringLiteral("id"), double(id)}}}});
    settle(id, ApprovalAnswer::Cancelled);
}

void WorkbenchApprover::readAnswers()
{
    while (m_socket->canReadLine()) {
        const std::optional<QJsonObject> message = parseLine(m_socket->readLine());
        const QJsonObject answer =
            message ? message->value(QStringLiteral("answer")).toObject() : QJsonObject();
        const std::optional<quint64> id = idOf(answer.value(QStringLiteral("id")));
        if (!id) {
            m_socket->abort(); // a workbench that speaks anything else is not trusted
            return;
        }
        const QString text = answer.value(QStringLiteral("answer")).toString();
        settle(*id, text == QLatin1String("approved")            ? ApprovalAnswer::Approved
                    : text == QLatin1String("approved_for_task") ? ApprovalAnswer::ApprovedForTask
                                                                 : ApprovalAnswer::Declined);
    }
    if (m_socket->bytesAvailable() > WorkbenchChannel::kMaxLineBytes)
        m_socket->abort();
}

void WorkbenchApprover::failAll()
{
    const QList<quint64> ids = m_pending.keys();
    m_unanswered += int(ids.size());
    for (const quint64 id : ids)
        settle(id, ApprovalAnswer::Failed);
}

void WorkbenchApprover::settle(quint64 id, ApprovalAnswer answer)
{
    const auto it = m_pending.find(id);
    if (it == m_pending.end())
        return;
    AnswerCallback done = std::move(it.value());
    m_pending.erase(it);
    if (done)
        done(answer);
}

// ---- the workbench's side -------------------------------------------------------------------

ApprovalBroker::ApprovalBroker(QObject *parent) : QObject(parent) {}

ApprovalBroker::~ApprovalBroker()
{
    if (m_server)
        m_server->close();
}

bool ApprovalBroker::listen(const QString &path)
{
    if (!m_server) {
        m_server = new QLocalServer(this);
        m_server->setSocketOptions(QLocalServer::UserAccessOption);
        connect(m_server, &QLocalServer::newConnection, this, &ApprovalBroker::accept);
    }
    // A workbench that answers there is alive: never take its socket.
    QLocalSocket probe;
    probe.connectToServer(path);
    if (probe.waitForConnected(500))
        return false;
    QLocalServer::removeServer(path);
    return m_server->listen(path);
}

QString ApprovalBroker::path() const
{
    return m_server ? m_server->fullServerName() : QString();
}

void ApprovalBroker::accept()
{
    while (QLocalSocket *socket = m_server->nextPendingConnection()) {
        socket->setParent(this);
        socket->setReadBufferSize(WorkbenchChannel::kMaxLineBytes * 2);
        connect(socket, &QLocalSocket::readyRead, this, [this, socket] { read(socket); });
        connect(socket, &QLocalSocket::disconnected, this, [this, socket] {
            dropConnection(socket);
            socket->deleteLater();
            if (m_connections.remove(socket))
                Q_EMIT agentsChanged(connectedAgents());
        });
        m_connections.insert(socket);
        Q_EMIT agentsChanged(connectedAgents());
    }
}

void ApprovalBroker::read(QLocalSocket *socket)
{
    while (socket->canReadLine()) {
        const std::optional<QJsonObject> message = parseLine(socket->readLine());
        const QJsonObject ask =
            message ? message->value(QStringLiteral("ask")).toObject() : QJsonObject();
        const QJsonObject cancel =
            message ? message->value(QStringLiteral("cancel")).toObject() : QJsonObject();
        if (message && message->size() == 1 && !cancel.isEmpty()) {
            const std::optional<quint64> id = idOf(cancel.value(QStringLiteral("id")));
            for (auto it = m_questions.begin(); id && it != m_questions.end(); ++it) {
                if (it->socket == socket && it->id == *id) {
                    const quint64 key = it.key();
                    m_questions.erase(it);
                    Q_EMIT withdrawn(key);
                    break;
                }
            }
            continue;
        }
        const std::optional<quint64> id = idOf(ask.value(QStringLiteral("id")));
        const QJsonValue offer = ask.value(QStringLiteral("offer"));
        if (!message || message->size() != 1 || !id ||
            !ask.value(QStringLiteral("view")).isObject() ||
            !(offer.isUndefined() || offer.isObject())) {
            socket->abort();
            return;
        }
        Question question;
        question.key = m_nextKey++;
        question.view = ask.value(QStringLiteral("view")).toObject();
        if (offer.isObject())
            question.offer = offer.toObject();
        question.offerRefused = ask.value(QStringLiteral("offer_refused")).toString();
        m_questions.insert(question.key, Origin{socket, *id, question.offer.has_value()});
        Q_EMIT asked(question);
    }
    if (socket->bytesAvailable() > WorkbenchChannel::kMaxLineBytes)
        socket->abort();
}

void ApprovalBroker::answer(quint64 key, ApprovalAnswer answer)
{
    const auto it = m_questions.find(key);
    if (it == m_questions.end())
        return;
    const Origin origin = it.value();
    m_questions.erase(it);
    if (answer == ApprovalAnswer::ApprovedForTask && !origin.offered)
        answer = ApprovalAnswer::Approved; // nothing else was offered
    if (!origin.socket)
        return;
    origin.socket->write(
        lineOf(QJsonObject{{QStringLiteral("answer"),
                            QJsonObject{{QStringLiteral("id"), double(origin.id)},
                                        {QStringLiteral("answer"), answerString(answer)}}}}));
}

void ApprovalBroker::dropConnection(QLocalSocket *socket)
{
    for (auto it = m_questions.begin(); it != m_questions.end();) {
        if (it->socket == socket || !it->socket) {
            const quint64 key = it.key();
            it = m_questions.erase(it);
            Q_EMIT withdrawn(key);
        } else {
            ++it;
        }
    }
}

} // namespace veetbot
