#include "TestOverrides.h"

#include "HostRules.h"

#include <QFile>
#include <QStringList>

#include <algorithm>
#include <cstdio>

namespace veetbot {

namespace {

Error invalidSetting()
{
    return Error{QStringLiteral("config.invalid_test_setting"),
                 QStringLiteral("A test-only setting is malformed.")};
}

// Announces that a test-only setting is in force. Names the variable only, never its value.
void announce(const QByteArray &line)
{
    std::fputs(line.constData(), stderr);
    std::fflush(stderr);
}

// A host name as it must appear in a mapping: LDH labels, at least one dot, no trailing
// dot, not numeric (an IP literal) and not a loopback name the browser would never proxy.
bool isMappableHost(const QString &host)
{
    if (host.isEmpty() || host.size() > 253)
        return false;
    const QStringList labels = host.split(u'.');
    if (labels.size() < 2)
        return false;
    for (const QString &label : labels) {
        if (!HostRules::isLdhLabel(label))
            return false;
    }
    return !HostRules::endsInNumber(host) && labels.constLast() != QLatin1String("localhost");
}

// Only plain loopback literals: dotted-quad 127/8 in its canonical spelling, or ::1.
std::optional<QHostAddress> parseLoopback(const QString &text)
{
    if (text.isEmpty() || text.contains(u'%') || text.contains(u'[') || text.contains(u'/'))
        return std::nullopt;
    QHostAddress address;
    if (!address.setAddress(text))
        return std::nullopt;
    if (address.protocol() == QAbstractSocket::IPv4Protocol) {
        if (address.toString() != text || (address.toIPv4Address() >> 24) != 127)
            return std::nullopt;
        return address;
    }
    if (address.protocol() == QAbstractSocket::IPv6Protocol && address.scopeId().isEmpty() &&
        address == QHostAddress(QHostAddress::LocalHostIPv6))
        return QHostAddress(QHostAddress::LocalHostIPv6);
    return std::nullopt;
}

} // namespace

Result<TestOverrides> TestOverrides::fromEnvironment()
{
    TestOverrides overrides;
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_RESOLVE")) {
        Result<TestOverrides> parsed = parseResolve(qEnvironmentVariable("VEETBOT_TEST_RESOLVE"));
        if (!parsed)
            return parsed.error();
        overrides = std::move(parsed).value();
        const qsizetype count = overrides.m_resolve.size();
        announce(QByteArrayLiteral("veetbot: test-only setting VEETBOT_TEST_RESOLVE is active (") +
                 QByteArray::number(count) +
                 (count == 1 ? QByteArrayLiteral(" host name)\n")
                             : QByteArrayLiteral(" host names)\n")));
    }
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_CA")) {
        const QString path = qEnvironmentVariable("VEETBOT_TEST_CA");
        if (path.isEmpty())
            return invalidSetting();
        overrides.setCaPath(path);
        announce(QByteArrayLiteral("veetbot: test-only setting VEETBOT_TEST_CA is active\n"));
    }
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_CLOCK")) {
        const QString path = qEnvironmentVariable("VEETBOT_TEST_CLOCK");
        if (path.isEmpty())
            return invalidSetting();
        overrides.m_clockFile = path;
        announce(QByteArrayLiteral("veetbot: test-only setting VEETBOT_TEST_CLOCK is active\n"));
    }
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_KILL_AFTER_ACT")) {
        bool ok = false;
        const int act = qEnvironmentVariable("VEETBOT_TEST_KILL_AFTER_ACT").toInt(&ok);
        if (!ok || act < 1 || act > 160)
            return invalidSetting();
        overrides.m_killAfterAct = act;
        announce(QByteArrayLiteral(
            "veetbot: test-only setting VEETBOT_TEST_KILL_AFTER_ACT is active\n"));
    }
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_VERIFY_MS")) {
        bool ok = false;
        const int ms = qEnvironmentVariable("VEETBOT_TEST_VERIFY_MS").toInt(&ok);
        if (!ok || ms < 1000 || ms > 30000)
            return invalidSetting();
        overrides.m_verifyMs = ms;
        announce(
            QByteArrayLiteral("veetbot: test-only setting VEETBOT_TEST_VERIFY_MS is active\n"));
    }
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_VERIFY_IDLE_MS")) {
        bool ok = false;
        const int ms = qEnvironmentVariable("VEETBOT_TEST_VERIFY_IDLE_MS").toInt(&ok);
        if (!ok || ms < 100 || ms > 5000)
            return invalidSetting();
        overrides.m_verifyIdleMs = ms;
        announce(QByteArrayLiteral(
            "veetbot: test-only setting VEETBOT_TEST_VERIFY_IDLE_MS is active\n"));
    }
    if (qEnvironmentVariableIsSet("VEETBOT_TEST_RENEW_MS")) {
        bool ok = false;
        const int ms = qEnvironmentVariable("VEETBOT_TEST_RENEW_MS").toInt(&ok);
        if (!ok || ms < 1000 || ms > 60000)
            return invalidSetting();
        overrides.m_renewMs = ms;
        announce(QByteArrayLiteral("veetbot: test-only setting VEETBOT_TEST_RENEW_MS is active\n"));
    }
    return overrides;
}

QDateTime TestOverrides::now() const
{
    const QDateTime real = QDateTime::currentDateTimeUtc();
    if (m_clockFile.isEmpty())
        return real;
    QFile file(m_clockFile);
    if (!file.open(QIODevice::ReadOnly))
        return real;
    bool ok = false;
    const qint64 offset = file.read(32).trimmed().toLongLong(&ok);
    return ok && offset >= 0 ? real.addMSecs(offset) : real;
}

Result<TestOverrides> TestOverrides::parseResolve(const QString &spec)
{
    TestOverrides overrides;
    const QStringList entries = spec.split(u',');
    for (const QString &entry : entries) {
        const qsizetype equals = entry.indexOf(u'=');
        if (equals < 0 || entry.indexOf(u'=', equals + 1) >= 0)
            return invalidSetting();
        const QString rawHost = entry.left(equals);
        // Lower-case only ASCII so a non-ASCII host cannot fold into an ASCII one.
        QString host;
        host.reserve(rawHost.size());
        for (QChar c : rawHost) {
            if (c.unicode() >= 0x80)
                return invalidSetting();
            host.append(c.toLower());
        }
        if (!isMappableHost(host))
            return invalidSetting();
        const std::optional<QHostAddress> address = parseLoopback(entry.mid(equals + 1));
        if (!address)
            return invalidSetting();
        const auto existing = overrides.m_resolve.constFind(host);
        if (existing != overrides.m_resolve.constEnd() && *existing != *address)
            return invalidSetting();
        overrides.m_resolve.insert(host, *address);
    }
    return overrides;
}

std::optional<QHostAddress> TestOverrides::resolve(const QString &asciiHost) const
{
    const auto it = m_resolve.constFind(asciiHost);
    if (it == m_resolve.constEnd())
        return std::nullopt;
    return *it;
}

QString TestOverrides::resolveSpec() const
{
    QStringList hosts = m_resolve.keys();
    std::sort(hosts.begin(), hosts.end());
    QStringList entries;
    entries.reserve(hosts.size());
    for (const QString &host : std::as_const(hosts))
        entries.append(host + u'=' + m_resolve.value(host).toString());
    return entries.join(u',');
}

} // namespace veetbot
