#include "PageAddress.h"

#include "domain/action/WriteGuard.h"

#include <QRegularExpression>
#include <QStringList>

namespace veetbot::PageAddress {

namespace {

constexpr qsizetype kMaxPartUnits = 32;
constexpr qsizetype kMaxLabelUnits = 64;
constexpr qsizetype kMaxQueryUnits = 8192;
const QString kSeparator = QStringLiteral(" \u00B7 ");

bool plainPart(const QString &value)
{
    static const QRegularExpression pattern(QStringLiteral("^[A-Za-z0-9._~-]+$"));
    return value.size() <= kMaxPartUnits && pattern.match(value).hasMatch();
}

QString decoded(QStringView part)
{
    return QUrl::fromPercentEncoding(
        part.toString().replace(QLatin1Char('+'), QLatin1Char(' ')).toUtf8());
}

bool isPageNameParameter(const QString &name)
{
    const QString lower = name.toLower();
    return lower == QLatin1String("title") || lower == QLatin1String("page") ||
           lower == QLatin1String("article");
}

} // namespace

QString queryLabel(const QUrl &url)
{
    if (!url.hasQuery())
        return QString();
    const QString raw = url.query(QUrl::FullyEncoded);
    if (raw.size() > kMaxQueryUnits)
        return QString();
    QString page;
    QStringList operations;
    for (const QStringView pair : QStringView(raw).split(QLatin1Char('&'))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        if (eq <= 0)
            continue;
        const QString name = decoded(pair.left(eq));
        const QString value = decoded(pair.mid(eq + 1));
        if (WriteGuard::isTokenParameterName(name) || WriteGuard::isTokenShapedValue(value) ||
            !plainPart(value))
            continue;
        if (page.isEmpty() && isPageNameParameter(name))
            page = value;
        else if (WriteGuard::isOperationParameterName(name) && !operations.contains(value))
            operations.append(value);
    }
    QStringList parts;
    if (!page.isEmpty())
        parts.append(page);
    parts.append(operations);
    QString label;
    for (const QString &part : std::as_const(parts)) {
        const QString next = label.isEmpty() ? part : label + kSeparator + part;
        if (next.size() > kMaxLabelUnits)
            break;
        label = next;
    }
    return label;
}

QUrl redactedForModel(const QUrl &url)
{
    if (!url.hasQuery())
        return url;
    QUrl out = url;
    const QString raw = url.query(QUrl::FullyEncoded);
    if (raw.size() > kMaxQueryUnits) {
        out.setQuery(QString());
        return out;
    }
    QStringList pairs;
    bool changed = false;
    for (const QStringView pair : QStringView(raw).split(QLatin1Char('&'))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        if (eq < 0) {
            pairs.append(pair.toString());
            continue;
        }
        const QString name = decoded(pair.left(eq));
        const QString value = decoded(pair.mid(eq + 1));
        if (!value.isEmpty() &&
            (WriteGuard::isTokenParameterName(name) || WriteGuard::isTokenShapedValue(value))) {
            pairs.append(pair.left(eq).toString() + QStringLiteral("=[redacted]"));
            changed = true;
        } else {
            pairs.append(pair.toString());
        }
    }
    if (changed)
        out.setQuery(pairs.join(QLatin1Char('&')), QUrl::TolerantMode);
    return out;
}

} // namespace veetbot::PageAddress
