#include "SessionFile.h"

#include "domain/profile/SessionState.h"
#include "storage/FileDescriptor.h"
#include "json/StrictJson.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace veetbot {

namespace {

Error invalid(const char *rule)
{
    return Error{QStringLiteral("invalid_request"), QString::fromLatin1(rule)};
}

Error notAHandoff()
{
    return invalid("The session file is not a sign-in hand-off or a Playwright storage state "
                   "(with --confirmed-url) within the service's bounds.");
}

} // namespace

QJsonObject SessionFile::Dropped::toJson() const
{
    return {{QStringLiteral("cookies"), cookies},
            {QStringLiteral("partitioned_cookies"), partitionedCookies},
            {QStringLiteral("local_storage_origins"), localStorageOrigins}};
}

Result<QByteArray> SessionFile::readPrivate(const QString &path)
{
    const Error unreadable{QStringLiteral("session_file.unreadable"),
                           QStringLiteral("The session file could not be read.")};
    // O_NONBLOCK: a FIFO is refused by its type, never waited on.
    FileDescriptor fd(::open(QFile::encodeName(path).constData(),
                             O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK));
    if (!fd.isValid()) {
        if (errno == ELOOP)
            return invalid("The session file must not be a symbolic link; give the file "
                           "itself.");
        return unreadable;
    }
    struct stat status = {};
    if (::fstat(fd.get(), &status) != 0)
        return unreadable;
    if (!S_ISREG(status.st_mode))
        return invalid("The session file must be a regular file.");
    if (status.st_uid != ::geteuid())
        return invalid("The session file must belong to you.");
    if ((status.st_mode & 07177) != 0)
        return invalid("The session file must have mode 0600 or stricter (chmod 600 FILE): it "
                       "holds a signed-in session.");
    QByteArray bytes;
    char buffer[64 * 1024];
    while (bytes.size() <= CeremonyApi::kMaxHandoffBody) {
        const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return unreadable;
        if (n == 0)
            break;
        bytes.append(buffer, qsizetype(n));
    }
    return bytes;
}

Result<SessionFile::Contents> SessionFile::parse(const QByteArray &bytes,
                                                 const QString &confirmedUrl,
                                                 const QList<Origin> &allowedOrigins,
                                                 const QDateTime &now,
                                                 const TestOverrides &overrides)
{
    if (bytes.size() > CeremonyApi::kMaxHandoffBody)
        return notAHandoff();
    StrictJson::Limits limits;
    limits.maxBytes = CeremonyApi::kMaxHandoffBody;
    limits.maxDepth = 6;
    limits.maxMembers = SessionState::kMaxItems + 8;
    limits.numbers = StrictJson::Numbers::Finite;
    const std::optional<QJsonValue> parsed = StrictJson::parse(bytes, limits);
    if (!parsed || !parsed->isObject())
        return notAHandoff();
    QJsonObject body = parsed->toObject();
    // A hand-off names its page; a storage state needs it given.
    if (body.contains(QStringLiteral("confirmed_url")) == !confirmedUrl.isEmpty())
        return notAHandoff();
    if (!confirmedUrl.isEmpty())
        body.insert(QStringLiteral("confirmed_url"), confirmedUrl);

    Dropped dropped;
    // A partitioned cookie is sent by a browser only under the one top-level site its key
    // names: a profile has no such context, so it is left out (the key itself is accepted).
    if (body.value(QStringLiteral("cookies")).isArray()) {
        QJsonArray kept;
        for (const QJsonValue &item : body.value(QStringLiteral("cookies")).toArray()) {
            QJsonObject cookie = item.toObject();
            if (item.isObject() && cookie.contains(QStringLiteral("partitionKey"))) {
                const QJsonValue key = cookie.take(QStringLiteral("partitionKey"));
                if (key.isString() && !key.toString().isEmpty()) {
                    ++dropped.partitionedCookies;
                    continue;
                }
                if (!key.isString() && !key.isNull())
                    return notAHandoff();
                kept.append(cookie);
                continue;
            }
            kept.append(item);
        }
        body.insert(QStringLiteral("cookies"), kept);
    }
    // localStorage is kept only for the profile's exact origins; any other origin (http, an
    // IP address, another site) is left out, as the service would.
    if (body.value(QStringLiteral("origins")).isArray()) {
        QJsonArray kept;
        for (const QJsonValue &item : body.value(QStringLiteral("origins")).toArray()) {
            const QJsonValue origin = item.toObject().value(QStringLiteral("origin"));
            bool onProfile = false;
            for (const Origin &allowed : allowedOrigins)
                onProfile = onProfile || origin.toString() == allowed.toString();
            if (item.isObject() && origin.isString() && !onProfile) {
                ++dropped.localStorageOrigins;
                continue;
            }
            kept.append(item);
        }
        body.insert(QStringLiteral("origins"), kept);
    }
    const auto handoff =
        CeremonyApi::parseHandoff(QJsonDocument(body).toJson(QJsonDocument::Compact), overrides);
    if (!std::holds_alternative<CeremonyApi::Handoff>(handoff))
        return notAHandoff();
    Contents contents{std::get<CeremonyApi::Handoff>(handoff), dropped};
    // The service's own filter decides which cookies the profile keeps; counted here.
    const SessionState scoped = contents.handoff.state.scopedTo(allowedOrigins, now);
    contents.dropped.cookies =
        int(contents.handoff.state.cookies.size()) - int(scoped.cookies.size());
    return contents;
}

Result<SessionFile::Contents> SessionFile::read(const QString &path, const QString &confirmedUrl,
                                                const QList<Origin> &allowedOrigins,
                                                const TestOverrides &overrides)
{
    const Result<QByteArray> bytes = readPrivate(path);
    if (!bytes)
        return bytes.error();
    return parse(*bytes, confirmedUrl, allowedOrigins, QDateTime::currentDateTimeUtc(), overrides);
}

} // namespace veetbot
