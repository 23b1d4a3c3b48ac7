#include "LiteralPath.h"

namespace veetbot {

bool isLiteralPath(const QString &path, qsizetype maxUnits)
{
    if (path.isEmpty() || path.size() > maxUnits || !path.startsWith(u'/') ||
        path.contains(QLatin1String("//")))
        return false;
    static const QString allowedPunctuation = QStringLiteral("-._~/?=&+,:;@!$'()*");
    for (const QChar c : path) {
        const bool alnum =
            (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
        if (!alnum && !allowedPunctuation.contains(c))
            return false;
    }
    const qsizetype query = path.indexOf(u'?');
    const QStringView pathPart = QStringView(path).left(query < 0 ? path.size() : query);
    for (const QStringView segment : pathPart.split(u'/')) {
        if (segment == u"." || segment == u"..")
            return false;
    }
    return true;
}

QUrl literalUrl(const QUrl &origin, const QString &path)
{
    QUrl url = origin;
    // Path and query set apart, each as written: the path's characters need no encoding, and
    // a query given to setQuery() keeps its separators.
    const qsizetype query = path.indexOf(u'?');
    url.setPath(query < 0 ? path : path.left(query));
    if (query >= 0)
        url.setQuery(path.mid(query + 1));
    return url;
}

} // namespace veetbot
