#include "TaskScope.h"

#include "domain/Sha256.h"
#include "domain/action/ActionConsequence.h"
#include "domain/profile/BrowserProfile.h"
#include "domain/web/TestOverrides.h"

#include <QStringList>

#include <algorithm>

namespace veetbot {

QString taskScopeFailureString(TaskScopeFailure failure)
{
    switch (failure) {
    case TaskScopeFailure::Invalid:
        return QStringLiteral("scope.invalid");
    case TaskScopeFailure::Sensitive:
        return QStringLiteral("scope.sensitive");
    case TaskScopeFailure::Limit:
        return QStringLiteral("scope.limit");
    case TaskScopeFailure::Duplicate:
        return QStringLiteral("scope.duplicate");
    case TaskScopeFailure::NotFound:
        return QStringLiteral("scope.not_found");
    case TaskScopeFailure::Conflict:
        return QStringLiteral("scope.conflict");
    }
    Q_UNREACHABLE();
    return QString();
}

QString taskScopeFailureMessage(TaskScopeFailure failure)
{
    switch (failure) {
    case TaskScopeFailure::Invalid:
        return QStringLiteral("A task scope must be an exact public HTTPS origin followed by one "
                              "path segment, such as https://www.acme-school.com/lesson.");
    case TaskScopeFailure::Sensitive:
        return QStringLiteral("The task scope's path segment names a sensitive area (sign-in, "
                              "account, administration, payment, pricing or messages).");
    case TaskScopeFailure::Limit:
        return QStringLiteral("At most sixteen task scopes can be configured.");
    case TaskScopeFailure::Duplicate:
        return QStringLiteral("The task scope is already in the list.");
    case TaskScopeFailure::NotFound:
        return QStringLiteral("The task scope is not in the list.");
    case TaskScopeFailure::Conflict:
        return QStringLiteral("The task scopes changed since they were read; read them again and "
                              "retry.");
    }
    Q_UNREACHABLE();
    return QString();
}

Error taskScopeError(TaskScopeFailure failure)
{
    return Error{taskScopeFailureString(failure), taskScopeFailureMessage(failure)};
}

bool isTaskScopeFailure(const Error &error, TaskScopeFailure failure)
{
    return error.code == taskScopeFailureString(failure);
}

namespace {

Error invalid()
{
    return taskScopeError(TaskScopeFailure::Invalid);
}

// Letters, digits and marks of the Unicode repertoire (any plane), and the unreserved
// punctuation of RFC 3986. Everything a server could read as structure ('/', '\', '%', ';',
// ...) is refused rather than encoded.
bool isAllowedSegmentCodePoint(char32_t c)
{
    if (c == U'-' || c == U'.' || c == U'_' || c == U'~')
        return true;
    return QChar::isLetterOrNumber(c) || QChar::isMark(c);
}

// The structural rules on a decoded segment.
bool isValidSegment(const QString &segment)
{
    if (segment.isEmpty() || segment.size() > TaskScope::kMaxSegmentLength)
        return false;
    // ".", ".." and longer runs of dots only: dot segments, or as good as one to a server.
    if (std::all_of(segment.cbegin(), segment.cend(), [](QChar c) { return c == u'.'; }))
        return false;
    const QList<uint> codePoints = segment.toUcs4();
    return std::all_of(codePoints.cbegin(), codePoints.cend(),
                       [](uint c) { return isAllowedSegmentCodePoint(char32_t(c)); });
}

// A decoded path segment, read the way a server does: percent-decoded once, as UTF-8.
QString decodedSegment(QStringView encoded)
{
    return QUrl::fromPercentEncoding(encoded.toUtf8());
}

// Task scopes live on the default HTTPS port; only a test host may name another (the
// fixture servers listen on random ports).
bool isAllowedPort(const Origin &origin, const TestOverrides &overrides)
{
    return origin.port() == 443 || overrides.hasHost(origin.host());
}

} // namespace

bool isSensitiveScopeSegment(QStringView segment)
{
    // The one classifier offers and coverage use too, so a scope can never be configured
    // where an offer would be refused for its own segment. It reads a segment as it
    // appears in an encoded path and decodes it once itself.
    return isSensitivePathSegment(QString::fromLatin1(QUrl::toPercentEncoding(segment.toString())));
}

Result<TaskScope> TaskScope::parse(const QString &text, const TestOverrides &overrides)
{
    Result<TaskScope> entry = parseExisting(text, overrides);
    if (entry && entry->isSensitive())
        return taskScopeError(TaskScopeFailure::Sensitive);
    return entry;
}

Result<TaskScope> TaskScope::parseExisting(const QString &text, const TestOverrides &overrides)
{
    if (text.isEmpty() || text.size() > kMaxTextLength)
        return invalid();
    // The same conservative reading as every other URL the owner types.
    const Result<QUrl> url = PublicUrl::parse(text, overrides);
    if (!url || url->hasQuery() || url->hasFragment())
        return invalid();
    const Result<Origin> origin = Origin::ofUrl(*url, overrides);
    if (!origin || !isAllowedPort(*origin, overrides))
        return invalid();

    // Exactly "/segment" or "/segment/", the segment still encoded: a literal '/' separates,
    // an encoded one is refused once decoded.
    QString path = url->path(QUrl::FullyEncoded);
    if (!path.startsWith(u'/'))
        return invalid();
    path.remove(0, 1);
    if (path.endsWith(u'/'))
        path.chop(1);
    if (path.isEmpty() || path.contains(u'/'))
        return invalid();
    const QString segment = decodedSegment(path);
    if (!isValidSegment(segment))
        return invalid();
    return TaskScope(*origin, segment);
}

Result<TaskScope> TaskScope::fromParts(const QString &origin, const QString &segment,
                                       const TestOverrides &overrides)
{
    const Result<Origin> parsed = Origin::parse(origin, overrides);
    if (!parsed || parsed->toString() != origin || !isAllowedPort(*parsed, overrides) ||
        !isValidSegment(segment))
        return invalid();
    return TaskScope(*parsed, segment);
}

QString TaskScope::toString() const
{
    return m_origin.toString() + u'/' + QString::fromLatin1(QUrl::toPercentEncoding(m_segment));
}

bool TaskScope::contains(const QUrl &url, const TestOverrides &overrides) const
{
    const Result<Origin> origin = Origin::ofUrl(url, overrides);
    if (!origin || *origin != m_origin)
        return false;
    const QString path = url.path(QUrl::FullyEncoded);
    if (!path.startsWith(u'/'))
        return false;
    const QStringList segments = path.mid(1).split(u'/');
    for (const QString &encoded : segments) {
        const QString decoded = decodedSegment(encoded);
        if (decoded == QLatin1String(".") || decoded == QLatin1String(".."))
            return false;
    }
    return decodedSegment(segments.constFirst()) == m_segment;
}

QString taskScopeSourceString(TaskScopeSource source)
{
    switch (source) {
    case TaskScopeSource::Owner:
        return QStringLiteral("owner");
    case TaskScopeSource::Seed:
        return QStringLiteral("seed");
    }
    Q_UNREACHABLE();
    return QString();
}

std::optional<TaskScopeSource> taskScopeSourceFromString(const QString &text)
{
    for (const TaskScopeSource source : {TaskScopeSource::Owner, TaskScopeSource::Seed}) {
        if (text == taskScopeSourceString(source))
            return source;
    }
    return std::nullopt;
}

std::optional<TaskScope> TaskScopePolicy::scopeFor(const QUrl &url,
                                                   const TestOverrides &overrides) const
{
    for (const TaskScope &entry : entries) {
        if (entry.contains(url, overrides))
            return entry;
    }
    return std::nullopt;
}

Result<QList<TaskScope>> TaskScopePolicy::normalize(QList<TaskScope> entries)
{
    std::sort(entries.begin(), entries.end());
    if (std::adjacent_find(entries.cbegin(), entries.cend()) != entries.cend())
        return taskScopeError(TaskScopeFailure::Duplicate);
    if (entries.size() > kMaxEntries)
        return taskScopeError(TaskScopeFailure::Limit);
    return entries;
}

QString TaskScopePolicy::digest(const QList<TaskScope> &entries)
{
    QList<TaskScope> sorted = entries;
    std::sort(sorted.begin(), sorted.end());
    QByteArray text;
    for (const TaskScope &entry : std::as_const(sorted))
        text += entry.toString().toUtf8() + '\n';
    return Sha256::hex(text);
}

TaskScopeAuditRecord TaskScopeAuditRecord::of(const QString &tenant, const QString &principal,
                                              const TaskScopeChange &change, const QDateTime &time)
{
    QStringList entries;
    for (const TaskScope &entry : change.policy.entries)
        entries << entry.toString();
    return TaskScopeAuditRecord{.id = BrowserProfile::newId(),
                                .tenant = tenant,
                                .principal = principal,
                                .kind = QString::fromUtf16(kTaskScopesUpdatedKind),
                                .at = time.toUTC(),
                                .revision = change.policy.revision,
                                .source = change.source,
                                .entries = std::move(entries)};
}

namespace TaskScopeRules {

namespace {

// The entries as a change may store them: canonical, unique, bounded and none sensitive.
Result<QList<TaskScope>> checkedEntries(const QList<TaskScope> &entries)
{
    Result<QList<TaskScope>> normalized = TaskScopePolicy::normalize(entries);
    if (!normalized)
        return normalized;
    for (const TaskScope &entry : *normalized) {
        if (entry.isSensitive())
            return taskScopeError(TaskScopeFailure::Sensitive);
    }
    return normalized;
}

QList<TaskScope> removedEntries(const QList<TaskScope> &before, const QList<TaskScope> &after)
{
    QList<TaskScope> removed;
    for (const TaskScope &entry : before) {
        if (!after.contains(entry))
            removed << entry;
    }
    return removed;
}

} // namespace

Result<TaskScopeChange> replace(const TaskScopeState &current, qint64 expectedRevision,
                                const QList<TaskScope> &entries)
{
    if (expectedRevision < 0)
        return taskScopeError(TaskScopeFailure::Invalid);
    Result<QList<TaskScope>> next = checkedEntries(entries);
    if (!next)
        return next.error();
    const TaskScopePolicy &before = current.policy;
    if (expectedRevision == before.revision) {
        if (before.isSaved() && *next == before.entries)
            return TaskScopeChange{.kind = TaskScopeChange::Kind::Unchanged, .policy = before};
        QList<TaskScope> removed = removedEntries(before.entries, *next);
        return TaskScopeChange{
            .kind = TaskScopeChange::Kind::Changed,
            .policy = TaskScopePolicy{.entries = *next, .revision = before.revision + 1},
            .source = TaskScopeSource::Owner,
            .removed = std::move(removed)};
    }
    // A lost answer retried: the owner's own last change, exactly, and nothing since.
    if (before.isSaved() && expectedRevision == before.revision - 1 &&
        current.lastSource == TaskScopeSource::Owner && *next == before.entries)
        return TaskScopeChange{.kind = TaskScopeChange::Kind::Replayed, .policy = before};
    return taskScopeError(TaskScopeFailure::Conflict);
}

Result<TaskScopeChange> seed(const TaskScopeState &current, const QList<TaskScope> &entries)
{
    Result<QList<TaskScope>> next = checkedEntries(entries);
    if (!next)
        return next.error();
    if (current.policy.isSaved())
        return TaskScopeChange{.kind = TaskScopeChange::Kind::Unchanged,
                               .policy = current.policy,
                               .source = TaskScopeSource::Seed};
    return TaskScopeChange{.kind = TaskScopeChange::Kind::Changed,
                           .policy =
                               TaskScopePolicy{.entries = std::move(next).value(), .revision = 1},
                           .source = TaskScopeSource::Seed};
}

} // namespace TaskScopeRules

} // namespace veetbot
