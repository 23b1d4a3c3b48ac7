#include "WriteGuard.h"

#include "ActionConsequence.h"
#include "json/StrictJson.h"

#include <QSet>
#include <QUrlQuery>

namespace veetbot::WriteGuard {

namespace {

constexpr qsizetype kMaxBodyBytes = 64 * 1024;
constexpr qsizetype kMaxQueryUnits = 8192;
constexpr int kMaxParameters = 128;
constexpr qsizetype kTokenValueUnits = 16;

// A parameter name, lower case, without separators: "authenticity_token", "csrfToken" and
// "X-CSRF-Token" all read as one word.
QString squashed(QStringView name)
{
    QString out;
    out.reserve(name.size());
    for (const QChar c : name) {
        if (c.isLetterOrNumber())
            out.append(c.toLower());
    }
    return out;
}

bool isReadMethod(const QByteArray &method)
{
    return method == "GET" || method == "HEAD";
}

// Walks a GraphQL document's top-level definitions, skipping strings, block strings and
// comments; false when any definition is not a query (mutation, subscription, or anything
// unreadable), or when there is none.
bool documentHoldsOnlyQueries(QStringView text)
{
    int depth = 0;
    int definitions = 0;
    qsizetype i = 0;
    const qsizetype n = text.size();
    while (i < n) {
        const QChar c = text[i];
        if (c == QLatin1Char('#')) {
            while (i < n && text[i] != QLatin1Char('\n'))
                ++i;
            continue;
        }
        if (c == QLatin1Char('"')) {
            if (text.mid(i, 3) == QLatin1String("\"\"\"")) {
                const qsizetype end = text.indexOf(QLatin1String("\"\"\""), i + 3);
                if (end < 0)
                    return false;
                i = end + 3;
                continue;
            }
            ++i;
            while (i < n && text[i] != QLatin1Char('"')) {
                if (text[i] == QLatin1Char('\\'))
                    ++i;
                ++i;
            }
            if (i >= n)
                return false;
            ++i;
            continue;
        }
        if (c == QLatin1Char('{')) {
            if (depth == 0)
                ++definitions; // the query shorthand, or a definition's selection set
            ++depth;
            ++i;
            continue;
        }
        if (c == QLatin1Char('}')) {
            if (--depth < 0)
                return false;
            ++i;
            continue;
        }
        if (depth == 0 && (c.isLetter() || c == QLatin1Char('_'))) {
            const qsizetype start = i;
            while (i < n && (text[i].isLetterOrNumber() || text[i] == QLatin1Char('_')))
                ++i;
            const QStringView word = text.mid(start, i - start);
            if (word == QLatin1String("query") || word == QLatin1String("fragment")) {
                // A definition's keyword: its selection set follows. Skip to it without
                // counting it twice.
                while (i < n && text[i] != QLatin1Char('{')) {
                    if (text[i] == QLatin1Char('"') || text[i] == QLatin1Char('#'))
                        break;
                    ++i;
                }
                if (i < n && text[i] == QLatin1Char('{')) {
                    ++depth;
                    ++i;
                    ++definitions;
                }
                continue;
            }
            return false; // mutation, subscription, or something this reader does not know
        }
        if (depth == 0 && !c.isSpace() && c != QLatin1Char(',') && c != QChar(0xFEFF))
            return false;
        ++i;
    }
    return depth == 0 && definitions > 0;
}

bool requestHoldsOnlyQueries(const StrictJson::Value &value)
{
    if (!value.isObject())
        return false;
    const StrictJson::Value *query = value.member("query");
    if (!query || !query->isString())
        return false; // a persisted query carries no text to read
    return documentHoldsOnlyQueries(QString::fromUtf8(query->string));
}

bool isSignOutSegment(QStringView segment)
{
    return pathSegmentConsequence(segment) == BrowserActionConsequence::SignOut;
}

// The last segment of a document or page request names what the endpoint does: /delete,
// /rollback, /save, /logout. Only verbs count.
bool isWriteEndpoint(QStringView segment)
{
    switch (pathSegmentConsequence(segment)) {
    case BrowserActionConsequence::Destructive:
    case BrowserActionConsequence::StateChange:
    case BrowserActionConsequence::SignOut:
    case BrowserActionConsequence::Submission:
        return true; // verbs; nouns such as /orders or /posts are read by GET every day
    default:
        return false;
    }
}

} // namespace

QString writeReasonString(WriteReason reason)
{
    switch (reason) {
    case WriteReason::None:
        return QStringLiteral("none");
    case WriteReason::Method:
        return QStringLiteral("method");
    case WriteReason::TokenParameter:
        return QStringLiteral("token_parameter");
    case WriteReason::TokenValue:
        return QStringLiteral("token_value");
    case WriteReason::OperationValue:
        return QStringLiteral("operation_value");
    case WriteReason::MethodOverride:
        return QStringLiteral("method_override");
    case WriteReason::WriteEndpoint:
        return QStringLiteral("write_endpoint");
    case WriteReason::SignOutPath:
        return QStringLiteral("sign_out_path");
    }
    Q_UNREACHABLE();
    return QString();
}

bool isTokenParameterName(QStringView name)
{
    const QString word = squashed(name);
    static const char *const kContained[] = {"token", "csrf", "xsrf", "nonce", "authenticity"};
    for (const char *part : kContained) {
        if (word.contains(QLatin1String(part)))
            return true;
    }
    static const QSet<QString> kWhole{QStringLiteral("sig"),    QStringLiteral("signature"),
                                      QStringLiteral("hmac"),   QStringLiteral("secret"),
                                      QStringLiteral("apikey"), QStringLiteral("accesskey"),
                                      QStringLiteral("otp"),    QStringLiteral("verifier"),
                                      QStringLiteral("signed"), QStringLiteral("sesskey")};
    return kWhole.contains(word);
}

bool isTokenShapedValue(QStringView value)
{
    if (value.size() < kTokenValueUnits)
        return false;
    int digits = 0;
    int upper = 0;
    int lower = 0;
    bool hexOnly = true;
    for (const QChar c : value) {
        if (c.isSpace())
            return false;
        const char16_t u = c.unicode();
        const bool hex =
            (u >= u'0' && u <= u'9') || (u >= u'a' && u <= u'f') || (u >= u'A' && u <= u'F');
        hexOnly = hexOnly && hex;
        if (c.isDigit())
            ++digits;
        else if (c.isUpper())
            ++upper;
        else if (c.isLower())
            ++lower;
    }
    const int letters = upper + lower;
    if (letters + digits < kTokenValueUnits)
        return false;
    // Hex of 16 or more with letters and digits both (a digest, a nonce).
    if (hexOnly && letters >= 2 && digits >= 2)
        return true;
    // Base64 and random tokens mix both cases and digits.
    if (upper >= 3 && lower >= 3 && digits >= 2)
        return true;
    // Both cases with no digits, upper case a quarter or more of the letters: base64 without
    // digits, never a CamelCase title ("WelcomeToTheJungleBook").
    return upper >= 4 && lower >= 4 && upper * 4 >= letters;
}

bool isPaginationParameterName(QStringView name)
{
    const QString word = squashed(name);
    static const QSet<QString> kNames{
        QStringLiteral("cursor"),        QStringLiteral("after"),
        QStringLiteral("before"),        QStringLiteral("pagetoken"),
        QStringLiteral("nextpagetoken"), QStringLiteral("pagecursor"),
        QStringLiteral("continuation"),  QStringLiteral("continuationtoken"),
        QStringLiteral("continue"),      QStringLiteral("offset"),
        QStringLiteral("page"),          QStringLiteral("next"),
        QStringLiteral("prev"),          QStringLiteral("start")};
    return kNames.contains(word);
}

bool isIdentifierParameterName(QStringView name)
{
    const QString word = squashed(name);
    return word.endsWith(QLatin1String("id")) || word.endsWith(QLatin1String("ids")) ||
           word == QLatin1String("uuid") || word == QLatin1String("guid") ||
           word == QLatin1String("slug") || word == QLatin1String("sku");
}

bool isOperationParameterName(QStringView name)
{
    static const QSet<QString> kNames{
        QStringLiteral("action"),    QStringLiteral("act"),  QStringLiteral("op"),
        QStringLiteral("operation"), QStringLiteral("do"),   QStringLiteral("cmd"),
        QStringLiteral("command"),   QStringLiteral("task"), QStringLiteral("mode"),
        QStringLiteral("method"),    QStringLiteral("func"), QStringLiteral("function"),
        QStringLiteral("event"),     QStringLiteral("verb"), QStringLiteral("intent")};
    return kNames.contains(squashed(name));
}

bool isReadOperation(QStringView value)
{
    static const QSet<QString> kReads{
        QStringLiteral("view"),     QStringLiteral("show"),    QStringLiteral("read"),
        QStringLiteral("get"),      QStringLiteral("list"),    QStringLiteral("index"),
        QStringLiteral("browse"),   QStringLiteral("search"),  QStringLiteral("find"),
        QStringLiteral("query"),    QStringLiteral("display"), QStringLiteral("print"),
        QStringLiteral("preview"),  QStringLiteral("history"), QStringLiteral("info"),
        QStringLiteral("raw"),      QStringLiteral("render"),  QStringLiteral("diff"),
        QStringLiteral("edit"),     QStringLiteral("help"),    QStringLiteral("details"),
        QStringLiteral("detail"),   QStringLiteral("open"),    QStringLiteral("load"),
        QStringLiteral("more"),     QStringLiteral("next"),    QStringLiteral("prev"),
        QStringLiteral("previous"), QStringLiteral("page"),    QStringLiteral("filter"),
        QStringLiteral("sort"),     QStringLiteral("expand"),  QStringLiteral("collapse")};
    return kReads.contains(squashed(value));
}

WriteReason queryWriteReason(const QUrl &url)
{
    if (!url.hasQuery())
        return WriteReason::None;
    const QString raw = url.query(QUrl::FullyEncoded);
    if (raw.size() > kMaxQueryUnits)
        return WriteReason::TokenValue; // too long to read: deny-biased
    int count = 0;
    for (const QStringView pair : QStringView(raw).split(QLatin1Char('&'))) {
        if (pair.isEmpty())
            continue;
        if (++count > kMaxParameters)
            return WriteReason::TokenValue;
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        const QString name =
            QUrl::fromPercentEncoding((eq < 0 ? pair : pair.left(eq))
                                          .toString()
                                          .replace(QLatin1Char('+'), QLatin1Char(' '))
                                          .toUtf8());
        const QString value =
            eq < 0 ? QString()
                   : QUrl::fromPercentEncoding(pair.mid(eq + 1)
                                                   .toString()
                                                   .replace(QLatin1Char('+'), QLatin1Char(' '))
                                                   .toUtf8());
        if (isPaginationParameterName(name))
            continue; // a page's place in a list: opaque, and only ever read
        if (isTokenParameterName(name))
            return WriteReason::TokenParameter;
        const QString squashedName = squashed(name);
        if (squashedName == QLatin1String("method") ||
            squashedName == QLatin1String("xhttpmethodoverride")) {
            if (!value.isEmpty() && !isReadOperation(value) &&
                squashed(value) != QLatin1String("head"))
                return WriteReason::MethodOverride;
            continue;
        }
        if (isOperationParameterName(name) && !value.isEmpty() && !isReadOperation(value))
            return WriteReason::OperationValue;
        if (!isIdentifierParameterName(name) && isTokenShapedValue(value))
            return WriteReason::TokenValue;
    }
    return WriteReason::None;
}

bool graphQlIsQuery(const QByteArray &body, const QByteArray &contentType)
{
    if (body.isEmpty() || body.size() > kMaxBodyBytes)
        return false;
    const QByteArray type = contentType.split(';').value(0).trimmed().toLower();
    if (type == "application/graphql")
        return documentHoldsOnlyQueries(QString::fromUtf8(body));
    if (type != "application/json" && type != "application/graphql+json" &&
        type != "application/graphql-response+json")
        return false;
    StrictJson::Limits limits;
    limits.maxBytes = kMaxBodyBytes;
    limits.maxDepth = 16;
    limits.numbers = StrictJson::Numbers::Finite;
    const std::optional<StrictJson::Value> parsed = StrictJson::parseDocument(body, limits);
    if (!parsed)
        return false;
    if (parsed->type == StrictJson::Value::Type::Array) {
        if (parsed->items.empty())
            return false;
        for (const StrictJson::Value &item : parsed->items) {
            if (!requestHoldsOnlyQueries(item))
                return false;
        }
        return true;
    }
    return requestHoldsOnlyQueries(*parsed);
}

Judgement judge(const Request &request)
{
    if (request.kind == RequestKind::Beacon)
        return {Verdict::Dropped, WriteReason::Method};
    if (!isReadMethod(request.method)) {
        const bool query = request.method == "POST" && request.body &&
                           (request.kind == RequestKind::PageRequest) &&
                           graphQlIsQuery(*request.body, request.contentType);
        if (!query)
            return {Verdict::Write, WriteReason::Method};
    }
    const QString path = request.url.path(QUrl::FullyEncoded);
    QStringView last;
    for (const QStringView segment : QStringView(path).split(QLatin1Char('/'))) {
        if (segment.isEmpty())
            continue;
        if (isSignOutSegment(segment))
            return {Verdict::Write, WriteReason::SignOutPath};
        last = segment;
    }
    const bool endpoint =
        request.kind == RequestKind::Document || request.kind == RequestKind::PageRequest;
    if (endpoint && !last.isEmpty() && isWriteEndpoint(last))
        return {Verdict::Write, WriteReason::WriteEndpoint};
    const WriteReason query = queryWriteReason(request.url);
    if (query != WriteReason::None)
        return {Verdict::Write, query};
    return {Verdict::Read, WriteReason::None};
}

} // namespace veetbot::WriteGuard
