#include "ScriptedModelServer.h"

#include <QJsonDocument>
#include <QTcpSocket>
#include <QTimer>

namespace veetbot::testing {

ScriptedModelServer::ScriptedModelServer(QObject *parent) : QObject(parent)
{
    connect(&m_server, &QTcpServer::newConnection, this, &ScriptedModelServer::onConnection);
}

bool ScriptedModelServer::listen()
{
    return m_server.listen(QHostAddress::LocalHost, 0);
}

QString ScriptedModelServer::baseUrl() const
{
    return QStringLiteral("http://127.0.0.1:%1/v1").arg(m_server.serverPort());
}

void ScriptedModelServer::reset()
{
    m_requests = 0;
    m_authorizations.clear();
}

ScriptedModelServer::Answer ScriptedModelServer::toolCall(const QString &name,
                                                          const QJsonObject &arguments)
{
    static int ids = 0;
    Answer answer;
    answer.message = QJsonObject{
        {QStringLiteral("role"), QStringLiteral("assistant")},
        {QStringLiteral("content"), QJsonValue::Null},
        {QStringLiteral("tool_calls"),
         QJsonArray{QJsonObject{{QStringLiteral("id"), QStringLiteral("call_%1").arg(++ids)},
                                {QStringLiteral("type"), QStringLiteral("function")},
                                {QStringLiteral("function"),
                                 QJsonObject{{QStringLiteral("name"), name},
                                             {QStringLiteral("arguments"),
                                              QString::fromUtf8(QJsonDocument(arguments).toJson(
                                                  QJsonDocument::Compact))}}}}}}};
    return answer;
}

ScriptedModelServer::Answer ScriptedModelServer::text(const QString &content)
{
    Answer answer;
    answer.message = QJsonObject{{QStringLiteral("role"), QStringLiteral("assistant")},
                                 {QStringLiteral("content"), content}};
    return answer;
}

bool ScriptedModelServer::offersTool(const QJsonObject &request, const QString &name)
{
    for (const QJsonValue &tool : request.value(QLatin1String("tools")).toArray()) {
        if (tool.toObject()
                .value(QLatin1String("function"))
                .toObject()
                .value(QLatin1String("name"))
                .toString() == name)
            return true;
    }
    return false;
}

void ScriptedModelServer::onConnection()
{
    while (QTcpSocket *socket = m_server.nextPendingConnection()) {
        connect(socket, &QTcpSocket::readyRead, this, [this, socket] { onData(socket); });
        connect(socket, &QTcpSocket::disconnected, this, [this, socket] {
            m_buffers.remove(socket);
            socket->deleteLater();
        });
    }
}

void ScriptedModelServer::onData(QTcpSocket *socket)
{
    QByteArray &buffer = m_buffers[socket];
    buffer += socket->readAll();
    const qsizetype headerEnd = buffer.indexOf("\r\n\r\n");
    if (headerEnd < 0)
        return;
    qsizetype length = 0;
    QByteArray authorization;
    for (const QByteArray &line : buffer.left(headerEnd).split('\n')) {
        const QByteArray trimmed = line.trimmed();
        const qsizetype colon = trimmed.indexOf(':');
        if (colon < 0)
            continue;
        const QByteArray name = trimmed.left(colon).toLower();
        if (name == "content-length")
            length = trimmed.mid(colon + 1).trimmed().toLongLong();
        else if (name == "authorization")
            authorization = trimmed.mid(colon + 1).trimmed();
    }
    if (buffer.size() < headerEnd + 4 + length)
        return;
    const QByteArray body = buffer.mid(headerEnd + 4, length);
    buffer.clear();
    ++m_requests;
    m_authorizations << authorization;
    const QJsonObject request = QJsonDocument::fromJson(body).object();
    const Answer answer = m_brain ? m_brain(request) : text(QStringLiteral("No brain."));
    if (answer.hold)
        return;
    const QJsonObject response{
        {QStringLiteral("id"), QStringLiteral("chatcmpl-%1").arg(m_requests)},
        {QStringLiteral("object"), QStringLiteral("chat.completion")},
        {QStringLiteral("choices"),
         QJsonArray{QJsonObject{
             {QStringLiteral("index"), 0},
             {QStringLiteral("message"), answer.message},
             {QStringLiteral("finish_reason"), answer.message.contains(QLatin1String("tool_calls"))
                                                   ? QStringLiteral("tool_calls")
                                                   : QStringLiteral("stop")}}}},
        {QStringLiteral("usage"),
         QJsonObject{{QStringLiteral("prompt_tokens"), answer.promptTokens},
                     {QStringLiteral("completion_tokens"), answer.completionTokens}}}};
    const QByteArray bytes = QJsonDocument(response).toJson(QJsonDocument::Compact);
    socket->write("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                  QByteArray::number(bytes.size()) + "\r\nConnection: close\r\n\r\n" + bytes);
    socket->disconnectFromHost();
}

ScriptedModelServer::Answer TaskModel::fail(const QString &why)
{
    m_script = nullptr;
    return ScriptedModelServer::text(QStringLiteral("Failed: ") + why);
}

ScriptedModelServer::Answer TaskModel::next(const QJsonObject &request)
{
    const QJsonArray messages = request.value(QLatin1String("messages")).toArray();
    const QJsonObject last = messages.last().toObject();
    if (last.value(QLatin1String("role")).toString() != QLatin1String("tool")) {
        // A new conversation (or a resumed one): its task is the first user message.
        m_script = nullptr;
        for (const QJsonValue &message : messages) {
            if (message.toObject().value(QLatin1String("role")).toString() != QLatin1String("user"))
                continue;
            const QString task = message.toObject().value(QLatin1String("content")).toString();
            for (const Script &script : m_scripts) {
                if (script.summary == task)
                    m_script = &script;
            }
            break;
        }
        if (!m_script)
            return ScriptedModelServer::text(QStringLiteral("Failed: unknown task"));
        m_step = 0;
        m_pending = Pending::None;
        m_view = {};
        m_stale = true;
        m_fromFirst = false;
        m_walk = 0;
        m_stated = false;
        m_askedAgain = false;
        return decide(request);
    }
    if (!m_script)
        return ScriptedModelServer::text(QStringLiteral("Failed: no task"));
    // What the run sent back: the projection's envelope, or {"error":{...}} (with a fresh
    // observation after a stale act).
    const QJsonObject result =
        QJsonDocument::fromJson(last.value(QLatin1String("content")).toString().toUtf8()).object();
    m_error =
        result.value(QLatin1String("error")).toObject().value(QLatin1String("code")).toString();
    const QJsonObject envelope =
        m_error.isEmpty() ? result : result.value(QLatin1String("observation")).toObject();
    const bool fresh =
        envelope.value(QLatin1String("trust")).toString() == QLatin1String("EXTERNAL_UNTRUSTED");
    if (fresh) {
        m_view = envelope.value(QLatin1String("observation")).toObject();
        m_stale = false;
    }
    const Step &step = m_script->steps.at(m_step);
    switch (m_pending) {
    case Pending::Navigate:
    case Pending::Act:
        if (m_pending == Pending::Act && !m_askedAgain && m_error != step.expect &&
            m_error == QLatin1String("tool.browser.write_requires_approval")) {
            // Nothing was sent; the same control, acted on again, goes to the owner (whatever
            // the step expects the owner to answer).
            m_askedAgain = true;
            m_stale = true;
        } else if (!step.expect.isEmpty()) {
            if (m_error != step.expect)
                return fail(QStringLiteral("expected ") + step.expect);
            m_stale = true;
            m_askedAgain = false;
            ++m_step;
        } else if (m_error.isEmpty() || (m_pending == Pending::Navigate && fresh &&
                                         result.contains(QLatin1String("resumed")))) {
            // Done; or the page asked to sign in, the owner did, and the run looked again.
            m_fromFirst = true;
            m_askedAgain = false;
            ++m_step;
        } else if (!(m_pending == Pending::Act && fresh)) {
            return fail(m_error);
        } // a stale act came back with a fresh observation: decide again
        break;
    case Pending::WaitFor:
        if (!m_error.isEmpty() || m_view.value(QLatin1String("wait_for"))
                                          .toObject()
                                          .value(QLatin1String("status"))
                                          .toString() != QLatin1String("satisfied"))
            return fail(QStringLiteral("wait not satisfied"));
        ++m_step;
        break;
    case Pending::Observe:
    case Pending::Expect:
        if (!m_error.isEmpty())
            return fail(m_error);
        break;
    case Pending::None:
        break;
    }
    m_pending = Pending::None;
    return decide(request);
}

ScriptedModelServer::Answer TaskModel::decide(const QJsonObject &request)
{
    for (;;) {
        if (m_step >= m_script->steps.size()) {
            m_script = nullptr;
            return ScriptedModelServer::text(QStringLiteral("Done."));
        }
        if (!m_stated && !m_script->expect.isEmpty() &&
            ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_expect"))) {
            m_stated = true;
            m_pending = Pending::Expect;
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_expect"),
                                                 m_script->expect);
        }
        const Step &step = m_script->steps.at(m_step);
        if (step.verb == QLatin1String("navigate")) {
            m_pending = Pending::Navigate;
            return ScriptedModelServer::toolCall(
                QStringLiteral("veetbot_navigate"),
                {{QStringLiteral("url"),
                  m_url(QStringLiteral("/tasks/%1/%2").arg(m_script->id, step.page))}});
        }
        if (step.verb == QLatin1String("absent")) {
            ++m_step; // the fixture server proves it: nothing may reach it
            continue;
        }
        if (step.verb == QLatin1String("wait_for")) {
            m_pending = Pending::WaitFor;
            return ScriptedModelServer::toolCall(
                QStringLiteral("veetbot_observe"),
                {{QStringLiteral("wait_for"),
                  QJsonObject{{QStringLiteral("role"), step.role},
                              {QStringLiteral("name"), step.name},
                              {QStringLiteral("timeout_ms"), step.timeoutMs}}}});
        }
        if (m_stale) {
            m_pending = Pending::Observe;
            m_fromFirst = true;
            return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"), {});
        }
        QJsonObject found;
        for (const QJsonValue &value : m_view.value(QLatin1String("elements")).toArray()) {
            const QJsonObject element = value.toObject();
            if (element.value(QLatin1String("role")).toString() == step.role &&
                element.value(QLatin1String("name")).toString() == step.name &&
                !element.value(QLatin1String("name_truncated")).toBool()) {
                found = element;
                break;
            }
        }
        if (found.isEmpty()) {
            const QJsonValue nextWindow = m_view.value(QLatin1String("next_observe"));
            if (nextWindow.isObject() && ++m_walk < 200) {
                m_pending = Pending::Observe;
                m_fromFirst = false;
                return ScriptedModelServer::toolCall(QStringLiteral("veetbot_observe"),
                                                     nextWindow.toObject());
            }
            if (!m_fromFirst) {
                m_stale = true;
                continue;
            }
            return fail(QStringLiteral("control not found"));
        }
        if (step.verb == QLatin1String("see")) {
            ++m_step;
            continue;
        }
        if (!ScriptedModelServer::offersTool(request, QStringLiteral("veetbot_act")))
            return fail(QStringLiteral("actions are suspended"));
        QJsonObject arguments{
            {QStringLiteral("kind"), step.verb},
            {QStringLiteral("expected_revision"), m_view.value(QLatin1String("revision"))},
            {QStringLiteral("ref"), found.value(QLatin1String("ref"))}};
        if (step.verb == QLatin1String("type"))
            arguments.insert(QStringLiteral("text"), step.text);
        else if (step.verb == QLatin1String("select"))
            arguments.insert(QStringLiteral("option"), step.text);
        else if (step.verb == QLatin1String("check"))
            arguments.insert(QStringLiteral("checked"), step.checked);
        else if (step.verb == QLatin1String("press"))
            arguments.insert(QStringLiteral("key"), step.text);
        m_pending = Pending::Act;
        m_walk = 0;
        return ScriptedModelServer::toolCall(QStringLiteral("veetbot_act"), arguments);
    }
}

} // namespace veetbot::testing
