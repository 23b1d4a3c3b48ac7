#pragma once

// A scripted OpenAI-compatible chat-completions server for task-run tests, on loopback plain
// HTTP (QTcpServer in the test's thread): each POST's JSON body goes to the brain, whose
// answer becomes choices[0].message. The brain sees only what the run sent: its messages and
// tools. Every request's Authorization header is kept, to check the key arrived.

#include <QHash>
#include <QJsonArray>
#include <QJsonObject>
#include <QObject>
#include <QPointer>
#include <QTcpServer>

#include <functional>

class QTcpSocket;

namespace veetbot::testing {

class ScriptedModelServer : public QObject
{
    Q_OBJECT
public:
    struct Answer
    {
        QJsonObject message; // {"role":"assistant","content":...,"tool_calls":[...]}
        qint64 promptTokens = 100;
        qint64 completionTokens = 20;
        bool hold = false; // never answer (the client gives up, or is cancelled)
    };
    using Brain = std::function<Answer(const QJsonObject &request)>;

    explicit ScriptedModelServer(QObject *parent = nullptr);
    bool listen();
    // http://127.0.0.1:<port>/v1 (the run appends /chat/completions).
    QString baseUrl() const;
    void setBrain(Brain brain) { m_brain = std::move(brain); }
    int requests() const { return m_requests; }
    const QList<QByteArray> &authorizations() const { return m_authorizations; }
    void reset();

    // Helpers for brains.
    static Answer toolCall(const QString &name, const QJsonObject &arguments);
    static Answer text(const QString &content);
    static bool offersTool(const QJsonObject &request, const QString &name);

private:
    void onConnection();
    void onData(QTcpSocket *socket);

    QTcpServer m_server;
    Brain m_brain;
    QHash<QTcpSocket *, QByteArray> m_buffers;
    int m_requests = 0;
    int m_callIds = 0;
    QList<QByteArray> m_authorizations;
};

// A scripted model for the fixture tasks of tests/tasks/manifest.json: the owner's task (the
// first user message) is a task's summary; the model plays that task's steps and decides each
// call from the projection it was sent (it finds the element with the step's role and name in
// the tool result, following next_observe), never from refs known in advance. A script with a
// completion predicate states it first (veetbot_expect). It answers "Done." when the steps are
// over, and "Failed: <why>" when a step cannot go on.
class TaskModel
{
public:
    struct Step
    {
        QString verb; // navigate, click, type, select, check, press, see, absent, wait_for
        QString page;
        QString role;
        QString name;
        QString text; // type: text; select: option; press: key
        bool checked = false;
        QString expect; // a tool.* code the call must fail with
        int timeoutMs = 0;
    };
    struct Script
    {
        QString id;
        QString summary;
        QList<Step> steps;
        QJsonObject expect; // the completion predicate; empty: none is stated
    };

    TaskModel(QList<Script> scripts, std::function<QString(const QString &path)> url)
        : m_scripts(std::move(scripts)), m_url(std::move(url))
    {
    }
    ScriptedModelServer::Answer next(const QJsonObject &request);

private:
    enum class Pending
    {
        None,
        Navigate,
        Observe,
        Act,
        WaitFor,
        Expect
    };
    ScriptedModelServer::Answer decide(const QJsonObject &request);
    ScriptedModelServer::Answer fail(const QString &why);

    QList<Script> m_scripts;
    std::function<QString(const QString &)> m_url;
    const Script *m_script = nullptr;
    int m_step = 0;
    Pending m_pending = Pending::None;
    QJsonObject m_view;
    QString m_error;
    bool m_stale = true;
    bool m_fromFirst = false;
    int m_walk = 0;
    bool m_stated = false;
    // The current step's act was refused by the write guard once: it observes again and acts
    // again, which asks the owner (as the message says).
    bool m_askedAgain = false;
};

} // namespace veetbot::testing
