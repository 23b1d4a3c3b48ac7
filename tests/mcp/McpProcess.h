#pragma once

#include <QByteArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QList>
#include <QProcess>
#include <QStringList>
#include <QTemporaryDir>

namespace veetbot::testing {

// The real `veetbot mcp` binary as a child process, driven line by line. Waiting keeps this
// process's event loop running, so a fixture server living here keeps answering.
class McpProcess
{
public:
    McpProcess() = default;
    ~McpProcess();

    // Starts `veetbot mcp ARGUMENTS`, with the fixture's test-only settings when given. Its
    // data directory (XDG_DATA_HOME, where the effect ledger lives) is `dataDir`, or a fresh
    // temporary one: never the machine's own.
    bool start(const QStringList &arguments, const QString &resolveSpec = {},
               const QString &caPath = {}, const QString &dataDir = {});
    qint64 pid() const { return m_process.processId(); }

    void send(const QJsonObject &message);
    void sendRaw(const QByteArray &bytes);
    void request(const QJsonValue &id, const QString &method, const QJsonObject &params = {});
    void notify(const QString &method, const QJsonObject &params = {});
    // Sends and waits for the answer with this id (an empty object on timeout).
    QJsonObject call(const QJsonValue &id, const QString &method, const QJsonObject &params = {},
                     int timeoutMs = 60000);
    QJsonObject callTool(const QJsonValue &id, const QString &tool, const QJsonObject &arguments,
                         int timeoutMs = 60000);
    // Waits for the first answer (no method) with this id, else returns an empty object.
    QJsonObject waitForAnswer(const QJsonValue &id, int timeoutMs = 60000);
    // Waits for the next message without an id (a refusal of a malformed message).
    QJsonObject waitForNullIdAnswer(int timeoutMs = 10000);
    // Every stdout line so far; a line that is not a JSON-RPC 2.0 object is recorded in
    // nonProtocolLines().
    const QList<QJsonObject> &messages();
    const QList<QByteArray> &nonProtocolLines();
    QByteArray standardError();

    // Closes stdin and waits for the exit; the exit code, or -1 for a crash or a timeout.
    int closeAndWait(int timeoutMs = 20000);
    // SIGKILL, no clean-up; waits until the process is gone.
    void killNow();
    // Answers the last elicitation/create the server sent (waiting for it) with `result`;
    // false when none came.
    bool answerElicitation(const QJsonObject &result, int timeoutMs = 30000);

    // Command lines of every live process below `pid` (children, grandchildren, ...).
    static QStringList descendants(qint64 pid);
    static QList<qint64> descendantPids(qint64 pid);
    static bool processExists(qint64 pid);

private:
    void readOutput();

    QTemporaryDir m_dataDir;
    QProcess m_process;
    QByteArray m_buffer;
    QByteArray m_stderr;
    QList<QJsonObject> m_messages;
    QList<QByteArray> m_nonProtocol;
    int m_consumedNullIds = 0;
};

// A tools/call result's single text item (or "<not one text item>") and its isError flag.
QString toolText(const QJsonObject &answer);
bool toolIsError(const QJsonObject &answer);
// The code of a tool failure's {"error":{"code","message"}} text.
QString toolErrorCode(const QJsonObject &answer);

} // namespace veetbot::testing
