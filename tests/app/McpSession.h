#pragma once

#include "EventWait.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QSet>
#include <QString>

#include <functional>

namespace veetbot::testing {

// One `veetbot mcp` process and its answers, read from its stdout.
class McpSession
{
public:
    explicit McpSession(QProcess *server) : m_server(server)
    {
        QObject::connect(server, &QProcess::readyReadStandardOutput, server,
                         [this] { m_received += m_server->readAllStandardOutput(); });
    }
    QJsonObject ask(const QString &method, const QJsonObject &params = {})
    {
        const int id = ++m_lastId;
        m_server->write(
            QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("id"), id},
                                      {QStringLiteral("method"), method},
                                      {QStringLiteral("params"), params}})
                .toJson(QJsonDocument::Compact) +
            '\n');
        QJsonObject answer;
        testing::runEventsUntil(
            [&] {
                for (const QByteArray &line : m_received.split('\n')) {
                    const QJsonObject message = QJsonDocument::fromJson(line).object();
                    if (message.value(QStringLiteral("method")) ==
                        QLatin1String("elicitation/create"))
                        answerElicitation(message);
                    else if (message.value(QStringLiteral("id")).toInt() == id)
                        answer = message;
                }
                return !answer.isEmpty();
            },
            60000);
        return answer;
    }
    // How the client answers the server's approval questions (elicitation/create): the
    // result object for its params. Each question is answered once.
    void onElicitation(std::function<QJsonObject(const QJsonObject &)> answer)
    {
        m_elicit = std::move(answer);
    }
    // Approves every approval question the server asks.
    void approveEveryQuestion()
    {
        onElicitation([](const QJsonObject &) {
            return QJsonObject{
                {QStringLiteral("action"), QStringLiteral("accept")},
                {QStringLiteral("content"), QJsonObject{{QStringLiteral("approve"), true}}}};
        });
    }
    // The MCP handshake, as a client that answers elicitation/create (approval questions) or
    // not.
    QJsonObject initialize(bool elicitation)
    {
        return ask(QStringLiteral("initialize"),
                   {{QStringLiteral("capabilities"),
                     elicitation ? QJsonObject{{QStringLiteral("elicitation"), QJsonObject()}}
                                 : QJsonObject()}});
    }
    int elicitations() const { return int(m_answered.size()); }
    const QJsonObject &lastElicitation() const { return m_lastElicitation; }
    // Types `text` into the element named `name` in the current observation.
    QString type(const QString &name, const QString &text)
    {
        const QJsonObject page = observe();
        QString ref;
        for (const QJsonValue &element : page.value(QStringLiteral("elements")).toArray()) {
            if (element.toObject().value(QStringLiteral("name")).toString() == name)
                ref = element.toObject().value(QStringLiteral("ref")).toString();
        }
        if (ref.isEmpty())
            return QStringLiteral("(no such element)");
        return tool(QStringLiteral("veetbot_act"),
                    {{QStringLiteral("kind"), QStringLiteral("type")},
                     {QStringLiteral("expected_revision"), page.value(QStringLiteral("revision"))},
                     {QStringLiteral("ref"), ref},
                     {QStringLiteral("text"), text}})
            .value(QStringLiteral("error"))
            .toObject()
            .value(QStringLiteral("code"))
            .toString();
    }
    // A tool's result text: the projection, or {"error":{...}}. No answer in time, a protocol
    // error or a result that is not a tool's text is {"error":{"code":"test.no_tool_result"}}:
    // a failure to every caller, never an empty success.
    QJsonObject tool(const QString &name, const QJsonObject &arguments)
    {
        const QJsonObject answer =
            ask(QStringLiteral("tools/call"),
                {{QStringLiteral("name"), name}, {QStringLiteral("arguments"), arguments}});
        const QJsonObject result = answer.value(QStringLiteral("result")).toObject();
        const QJsonObject text = QJsonDocument::fromJson(result.value(QStringLiteral("content"))
                                                             .toArray()
                                                             .first()
                                                             .toObject()
                                                             .value(QStringLiteral("text"))
                                                             .toString()
                                                             .toUtf8())
                                     .object();
        if (text.isEmpty())
            return {{QStringLiteral("error"),
                     QJsonObject{{QStringLiteral("code"), QStringLiteral("test.no_tool_result")}}}};
        return text;
    }
    // The current observation.
    QJsonObject observe()
    {
        return tool(QStringLiteral("veetbot_observe"), {})
            .value(QStringLiteral("observation"))
            .toObject();
    }
    // Clicks the element named `name` in `page`: the act's error code, or empty.
    QString click(const QJsonObject &page, const QString &name)
    {
        QString ref;
        for (const QJsonValue &element : page.value(QStringLiteral("elements")).toArray()) {
            if (element.toObject().value(QStringLiteral("name")).toString() == name)
                ref = element.toObject().value(QStringLiteral("ref")).toString();
        }
        if (ref.isEmpty())
            return QStringLiteral("(no such element)");
        const QJsonObject acted =
            tool(QStringLiteral("veetbot_act"),
                 {{QStringLiteral("kind"), QStringLiteral("click")},
                  {QStringLiteral("expected_revision"), page.value(QStringLiteral("revision"))},
                  {QStringLiteral("ref"), ref}});
        return acted.value(QStringLiteral("error"))
            .toObject()
            .value(QStringLiteral("code"))
            .toString();
    }
    // Observes the page and clicks the element named `name`.
    QString click(const QString &name) { return click(observe(), name); }

private:
    void answerElicitation(const QJsonObject &message)
    {
        const QJsonValue id = message.value(QStringLiteral("id"));
        const QString key = QString::fromUtf8(QJsonDocument(QJsonArray{id}).toJson());
        if (m_answered.contains(key))
            return;
        m_answered.insert(key);
        m_lastElicitation = message.value(QStringLiteral("params")).toObject();
        const QJsonObject result =
            m_elicit ? m_elicit(m_lastElicitation)
                     : QJsonObject{{QStringLiteral("action"), QStringLiteral("decline")}};
        m_server->write(
            QJsonDocument(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                                      {QStringLiteral("id"), id},
                                      {QStringLiteral("result"), result}})
                .toJson(QJsonDocument::Compact) +
            '\n');
    }

    QProcess *m_server;
    QByteArray m_received;
    int m_lastId = 0;
    std::function<QJsonObject(const QJsonObject &)> m_elicit;
    QSet<QString> m_answered;
    QJsonObject m_lastElicitation;
};

} // namespace veetbot::testing
