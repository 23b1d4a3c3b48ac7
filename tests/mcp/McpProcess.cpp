#include "McpProcess.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QProcessEnvironment>
#include <QTest>

namespace veetbot::testing {

McpProcess::~McpProcess()
{
    if (m_process.state() != QProcess::NotRunning) {
        m_process.kill();
        m_process.waitForFinished(5000);
    }
}

bool McpProcess::start(const QStringList &arguments, const QString &resolveSpec,
                       const QString &caPath, const QString &dataDir)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_DATA_HOME"), dataDir.isEmpty() ? m_dataDir.path() : dataDir);
    env.remove(QStringLiteral("VEETBOT_TEST_RESOLVE"));
    env.remove(QStringLiteral("VEETBOT_TEST_CA"));
    if (!resolveSpec.isEmpty())
        env.insert(QStringLiteral("VEETBOT_TEST_RESOLVE"), resolveSpec);
    if (!caPath.isEmpty())
        env.insert(QStringLiteral("VEETBOT_TEST_CA"), caPath);
    m_process.setProcessEnvironment(env);
    QObject::connect(&m_process, &QProcess::readyReadStandardOutput, &m_process,
                     [this] { readOutput(); });
    QObject::connect(&m_process, &QProcess::readyReadStandardError, &m_process,
                     [this] { m_stderr += m_process.readAllStandardError(); });
    m_process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/veetbot"),
                    QStringList{QStringLiteral("mcp")} + arguments);
    return m_process.waitForStarted(10000);
}

void McpProcess::killNow()
{
    if (m_process.state() == QProcess::NotRunning)
        return;
    m_process.kill(); // SIGKILL
    m_process.waitForFinished(10000);
}

bool McpProcess::answerElicitation(const QJsonObject &result, int timeoutMs)
{
    QJsonObject asked;
    const auto find = [this, &asked] {
        for (const QJsonObject &message : messages()) {
            if (message.value(QLatin1String("method")) == QLatin1String("elicitation/create") &&
                message.contains(QLatin1String("id")))
                asked = message;
        }
        return !asked.isEmpty();
    };
    if (!QTest::qWaitFor(find, timeoutMs))
        return false;
    send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                     {QStringLiteral("id"), asked.value(QLatin1String("id"))},
                     {QStringLiteral("result"), result}});
    return true;
}

void McpProcess::readOutput()
{
    m_buffer += m_process.readAllStandardOutput();
    for (qsizetype newline = m_buffer.indexOf('\n'); newline >= 0;
         newline = m_buffer.indexOf('\n')) {
        const QByteArray line = m_buffer.left(newline);
        m_buffer.remove(0, newline + 1);
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(line, &error);
        if (error.error != QJsonParseError::NoError || !document.isObject() ||
            document.object().value(QLatin1String("jsonrpc")).toString() != QLatin1String("2.0")) {
            m_nonProtocol.append(line);
            continue;
        }
        m_messages.append(document.object());
    }
}

const QList<QJsonObject> &McpProcess::messages()
{
    readOutput();
    return m_messages;
}

const QList<QByteArray> &McpProcess::nonProtocolLines()
{
    readOutput();
    if (!m_buffer.isEmpty() && m_process.state() == QProcess::NotRunning)
        m_nonProtocol.append(std::exchange(m_buffer, QByteArray())); // no final newline
    return m_nonProtocol;
}

QByteArray McpProcess::standardError()
{
    m_stderr += m_process.readAllStandardError();
    return m_stderr;
}

void McpProcess::sendRaw(const QByteArray &bytes)
{
    m_process.write(bytes);
}

void McpProcess::send(const QJsonObject &message)
{
    sendRaw(QJsonDocument(message).toJson(QJsonDocument::Compact) + '\n');
}

void McpProcess::request(const QJsonValue &id, const QString &method, const QJsonObject &params)
{
    send(QJsonObject{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                     {QStringLiteral("id"), id},
                     {QStringLiteral("method"), method},
                     {QStringLiteral("params"), params}});
}

void McpProcess::notify(const QString &method, const QJsonObject &params)
{
    QJsonObject message{{QStringLiteral("jsonrpc"), QStringLiteral("2.0")},
                        {QStringLiteral("method"), method}};
    if (!params.isEmpty())
        message.insert(QStringLiteral("params"), params);
    send(message);
}

QJsonObject McpProcess::call(const QJsonValue &id, const QString &method, const QJsonObject &params,
                             int timeoutMs)
{
    request(id, method, params);
    return waitForAnswer(id, timeoutMs);
}

QJsonObject McpProcess::callTool(const QJsonValue &id, const QString &tool,
                                 const QJsonObject &arguments, int timeoutMs)
{
    return call(
        id, QStringLiteral("tools/call"),
        QJsonObject{{QStringLiteral("name"), tool}, {QStringLiteral("arguments"), arguments}},
        timeoutMs);
}

QJsonObject McpProcess::waitForAnswer(const QJsonValue &id, int timeoutMs)
{
    QJsonObject found; // empty when nothing came in time: the caller checks it
    (void)QTest::qWaitFor(
        [&] {
            for (const QJsonObject &message : messages()) {
                if (message.value(QLatin1String("id")) == id &&
                    !message.contains(QLatin1String("method"))) {
                    found = message;
                    return true;
                }
            }
            return m_process.state() == QProcess::NotRunning;
        },
        timeoutMs);
    return found;
}

QJsonObject McpProcess::waitForNullIdAnswer(int timeoutMs)
{
    QJsonObject found; // empty when nothing came in time: the caller checks it
    (void)QTest::qWaitFor(
        [&] {
            int seen = 0;
            for (const QJsonObject &message : messages()) {
                if (!message.value(QLatin1String("id")).isNull())
                    continue;
                if (seen++ == m_consumedNullIds) {
                    found = message;
                    ++m_consumedNullIds;
                    return true;
                }
            }
            return m_process.state() == QProcess::NotRunning;
        },
        timeoutMs);
    return found;
}

int McpProcess::closeAndWait(int timeoutMs)
{
    m_process.closeWriteChannel();
    if (!QTest::qWaitFor([this] { return m_process.state() == QProcess::NotRunning; }, timeoutMs)) {
        m_process.kill();
        m_process.waitForFinished(5000);
        return -1;
    }
    readOutput();
    return m_process.exitStatus() == QProcess::NormalExit ? m_process.exitCode() : -1;
}

QStringList McpProcess::descendants(qint64 root)
{
    QStringList commands;
    for (const qint64 pid : descendantPids(root)) {
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(pid));
        QByteArray command =
            cmdline.open(QIODevice::ReadOnly) ? cmdline.readAll() : QByteArray("?");
        command.replace('\0', ' ');
        commands.append(QString::fromLocal8Bit(command.trimmed()));
    }
    return commands;
}

QList<qint64> McpProcess::descendantPids(qint64 root)
{
    // ppid of every live process, from /proc/<pid>/stat (the field after the parenthesized
    // command name).
    QHash<qint64, qint64> parentOf;
    const QStringList entries = QDir(QStringLiteral("/proc")).entryList(QDir::Dirs);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray text = stat.readAll();
        const qsizetype close = text.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> fields = text.mid(close + 2).split(' ');
        if (fields.size() < 2 || fields[0] == "Z")
            continue;
        parentOf.insert(pid, fields[1].toLongLong());
    }
    QList<qint64> pids;
    for (auto it = parentOf.constBegin(); it != parentOf.constEnd(); ++it) {
        qint64 ancestor = it.value();
        for (int depth = 0; depth < 64 && ancestor > 1; ++depth) {
            if (ancestor == root) {
                pids.append(it.key());
                break;
            }
            ancestor = parentOf.value(ancestor, 0);
        }
    }
    return pids;
}

bool McpProcess::processExists(qint64 pid)
{
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return false;
    const QByteArray text = stat.readAll();
    const qsizetype close = text.lastIndexOf(')');
    return close >= 0 && text.mid(close + 2, 1) != "Z";
}

QString toolText(const QJsonObject &answer)
{
    const QJsonArray content =
        answer.value(QLatin1String("result")).toObject().value(QLatin1String("content")).toArray();
    if (content.size() != 1 ||
        content[0].toObject().value(QLatin1String("type")).toString() != QLatin1String("text"))
        return QStringLiteral("<not one text item>");
    return content[0].toObject().value(QLatin1String("text")).toString();
}

bool toolIsError(const QJsonObject &answer)
{
    return answer.value(QLatin1String("result"))
        .toObject()
        .value(QLatin1String("isError"))
        .toBool();
}

QString toolErrorCode(const QJsonObject &answer)
{
    return QJsonDocument::fromJson(toolText(answer).toUtf8())
        .object()
        .value(QLatin1String("error"))
        .toObject()
        .value(QLatin1String("code"))
        .toString();
}

} // namespace veetbot::testing
