#include "Activity.h"

#include "domain/web/PageAddress.h"

#include <QRegularExpression>
#include <QStringList>

namespace veetbot {

namespace {

bool oneOf(const QString &value, const QStringList &allowed, bool emptyAllowed = true)
{
    return (emptyAllowed && value.isEmpty()) || allowed.contains(value);
}

bool plain(const QString &value, int maxLength)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9._~-]*$"));
    return value.size() <= maxLength && pattern.match(value).hasMatch();
}

// A plain path segment, or a query label: plain parts joined by " · " (PageAddress).
bool plainSegment(const QString &value)
{
    if (value.size() > 64)
        return false;
    for (const QString &part : value.split(QStringLiteral(" \u00B7 "))) {
        if (!plain(part, 64) || (part.isEmpty() && value.contains(u'\u00B7')))
            return false;
    }
    return true;
}

bool isOrigin(const QString &value)
{
    if (value.isEmpty())
        return true;
    const QUrl url(value, QUrl::StrictMode);
    return value.size() <= 300 && url.isValid() &&
           (url.scheme() == QLatin1String("https") || url.scheme() == QLatin1String("http")) &&
           url.path().isEmpty() && !url.hasQuery() && !url.hasFragment() &&
           url.userInfo().isEmpty() && value == url.toString(QUrl::FullyEncoded);
}

} // namespace

Error activityRunNotFound()
{
    return Error{QStringLiteral("run.not_found"), QStringLiteral("No such run.")};
}

void ActivityEvent::setPage(const QUrl &url)
{
    if (!url.isValid() || url.host().isEmpty())
        return;
    QString text = url.scheme() + QStringLiteral("://") + url.host(QUrl::FullyEncoded).toLower();
    if (url.port() != -1)
        text += u':' + QString::number(url.port());
    origin = text;
    const QString path = url.path(QUrl::FullyEncoded);
    const QString first = path.section(u'/', 1, 1);
    // Where the query names the page and its operation (index.php?title=Sandbox&action=edit),
    // that is the page: "Sandbox · edit".
    const QString label = PageAddress::queryLabel(url);
    if (!label.isEmpty())
        pathSegment = label;
    else if (!first.isEmpty() && plain(first, 64))
        pathSegment = first;
}

bool isContentFree(const ActivityEvent &event)
{
    static const QStringList kinds{
        QStringLiteral("tool.call"),          QStringLiteral("observation"),
        QStringLiteral("task_grant.created"), QStringLiteral("task_grant.used"),
        QStringLiteral("model.call"),         QStringLiteral("sign_in.required"),
        QStringLiteral("sign_in.resumed")};
    static const QStringList tools{QStringLiteral("browser.navigate"),
                                   QStringLiteral("browser.observe"),
                                   QStringLiteral("browser.act")};
    static const QStringList actions{QStringLiteral("click"),  QStringLiteral("type"),
                                     QStringLiteral("select"), QStringLiteral("check"),
                                     QStringLiteral("press"),  QStringLiteral("scroll")};
    static const QStringList sources{
        QStringLiteral("owner_approval"),    QStringLiteral("task_grant"),
        QStringLiteral("standing_grant"),    QStringLiteral("ordinary_interaction"),
        QStringLiteral("scroll_permission"), QStringLiteral("none")};
    static const QStringList outcomes{QStringLiteral("succeeded"), QStringLiteral("refused"),
                                      QStringLiteral("failed"), QStringLiteral("uncertain"),
                                      QStringLiteral("cancelled")};
    static const QRegularExpression code(QStringLiteral("^[a-z_]+(\\.[a-z_]+)*$"));
    static const QRegularExpression roleWord(QStringLiteral("^[a-z ]{0,32}$"));
    return oneOf(event.kind, kinds, false) && oneOf(event.tool, tools) &&
           oneOf(event.actionKind, actions) && roleWord.match(event.targetRole).hasMatch() &&
           oneOf(event.approvalSource, sources) && oneOf(event.outcome, outcomes) &&
           event.code.size() <= 64 && (event.code.isEmpty() || code.match(event.code).hasMatch()) &&
           isOrigin(event.origin) && plainSegment(event.pathSegment);
}

bool isContentFree(const ActivityRun &run)
{
    static const QStringList reasons{
        QStringLiteral("input_ended"), QStringLiteral("interrupted"),
        QStringLiteral("completed"),   QStringLiteral("failed"),
        QStringLiteral("refused"),     QStringLiteral("budget_exhausted"),
        QStringLiteral("cancelled"),   QStringLiteral("needs_user")};
    return oneOf(run.kind, {QStringLiteral("mcp"), QStringLiteral("task")}, false) &&
           isOrigin(run.website) && oneOf(run.endReason, reasons) &&
           (run.lastApprovalSource.isEmpty() || plain(run.lastApprovalSource, 32));
}

} // namespace veetbot
