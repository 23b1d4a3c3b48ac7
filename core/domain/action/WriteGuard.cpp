#include "WriteGuard.h"

#include "ActionConsequence.h"
#include "domain/observation/ElementFacts.h"
#include "json/StrictJson.h"

#include <QRegularExpression>
#include <QSet>
#include <QUrlQuery>

#include <algorithm>
#include <utility>

namespace veetbot::WriteGuard {

namespace {

constexpr qsizetype kMaxBodyBytes = 64 * 1024;
constexpr qsizetype kMaxQueryUnits = 8192;
constexpr int kMaxParameters = 128;
constexpr qsizetype kTokenValueUnits = 16;
constexpr qsizetype kMaxSignOutPartUnits = 256;

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
// /rollback, /save, /logout, /unsubscribe, /mark-all-read. Only verbs count.
bool isWriteEndpoint(QStringView segment)
{
    static const QSet<QString> kVerbs{
        QStringLiteral("unsubscribe"), QStringLiteral("optout"), QStringLiteral("markread"),
        QStringLiteral("markallread"), QStringLiteral("markasread"),
        QStringLiteral("markallasread"), QStringLiteral("markseen"), QStringLiteral("approve"),
        QStringLiteral("unapprove"), QStringLiteral("spam"), QStringLiteral("unspam"),
        QStringLiteral("like"), QStringLiteral("unlike"), QStringLiteral("follow"),
        QStringLiteral("unfollow"), QStringLiteral("upvote"), QStringLiteral("downvote"),
        QStringLiteral("activate"), QStringLiteral("deactivate"), QStringLiteral("dismiss"),
        QStringLiteral("unpublish"), QStringLiteral("unwatch"), QStringLiteral("unstar"),
        QStringLiteral("thank"),
        // Publishing verbs (the nouns, /posts and /comments, are read every day).
        QStringLiteral("publish"), QStringLiteral("send"), QStringLiteral("submit"),
        QStringLiteral("reply"), QStringLiteral("share"), QStringLiteral("repost"),
        QStringLiteral("tweet"), QStringLiteral("vote"), QStringLiteral("forward")};
    QString word = QUrl::fromPercentEncoding(segment.toString().toUtf8());
    const qsizetype dot = word.lastIndexOf(QLatin1Char('.'));
    if (dot > 0)
        word.truncate(dot); // /unsubscribe.php
    if (kVerbs.contains(squashed(word)))
        return true;
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
        QStringLiteral("page"),          QStringLiteral("paged"),
        QStringLiteral("next"),          QStringLiteral("prev"),
        QStringLiteral("start")};
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
    static const QSet<QString> kWeak{QStringLiteral("task"), QStringLiteral("mode"),
                                     QStringLiteral("event"), QStringLiteral("intent")};
    return isStrongOperationParameterName(name) || kWeak.contains(squashed(name));
}

bool isStrongOperationParameterName(QStringView name)
{
    static const QSet<QString> kNames{
        QStringLiteral("action"),    QStringLiteral("act"),    QStringLiteral("op"),
        QStringLiteral("operation"), QStringLiteral("do"),     QStringLiteral("cmd"),
        QStringLiteral("command"),   QStringLiteral("method"), QStringLiteral("func"),
        QStringLiteral("function"),  QStringLiteral("verb")};
    return kNames.contains(squashed(name));
}

namespace {

// An operation value's words, lower case: split on everything that is not a letter or digit
// and on camel-case humps ("markAllRead" is mark, all, read; "article.save" is article, save).
QStringList operationWords(QStringView value)
{
    QStringList words;
    QString word;
    QChar previous;
    for (const QChar c : value) {
        if (!c.isLetterOrNumber()) {
            if (!word.isEmpty())
                words.append(std::exchange(word, QString()));
            previous = QChar();
            continue;
        }
        if (c.isUpper() && previous.isLower() && !word.isEmpty())
            words.append(std::exchange(word, QString()));
        word.append(c.toLower());
        previous = c;
    }
    if (!word.isEmpty())
        words.append(word);
    return words;
}

// Verbs a URL's operation uses when it changes the site. A value is also a write when the
// classifier names a consequence in it (in every language its vocabulary reads).
const QSet<QString> &writeOperationWords()
{
    static const QSet<QString> kWords{
        QStringLiteral("delete"),     QStringLiteral("del"),        QStringLiteral("remove"),
        QStringLiteral("rm"),         QStringLiteral("trash"),      QStringLiteral("untrash"),
        QStringLiteral("destroy"),    QStringLiteral("erase"),      QStringLiteral("purge"),
        QStringLiteral("wipe"),       QStringLiteral("clear"),      QStringLiteral("drop"),
        QStringLiteral("empty"),      QStringLiteral("spam"),       QStringLiteral("unspam"),
        QStringLiteral("approve"),    QStringLiteral("unapprove"),  QStringLiteral("reject"),
        QStringLiteral("decline"),    QStringLiteral("rollback"),   QStringLiteral("revert"),
        QStringLiteral("undo"),       QStringLiteral("redo"),       QStringLiteral("restore"),
        QStringLiteral("logout"),     QStringLiteral("signout"),    QStringLiteral("logoff"),
        QStringLiteral("mark"),       QStringLiteral("markread"),   QStringLiteral("markallread"),
        QStringLiteral("markasread"), QStringLiteral("markunread"), QStringLiteral("markpatrolled"),
        QStringLiteral("markseen"),   QStringLiteral("subscribe"),  QStringLiteral("unsubscribe"),
        QStringLiteral("protect"),    QStringLiteral("unprotect"),  QStringLiteral("watch"),
        QStringLiteral("unwatch"),    QStringLiteral("block"),      QStringLiteral("unblock"),
        QStringLiteral("ban"),        QStringLiteral("unban"),      QStringLiteral("lock"),
        QStringLiteral("unlock"),     QStringLiteral("move"),       QStringLiteral("rename"),
        QStringLiteral("submit"),     QStringLiteral("save"),       QStringLiteral("update"),
        QStringLiteral("create"),     QStringLiteral("add"),        QStringLiteral("insert"),
        QStringLiteral("publish"),    QStringLiteral("unpublish"),  QStringLiteral("activate"),
        QStringLiteral("deactivate"), QStringLiteral("enable"),     QStringLiteral("disable"),
        QStringLiteral("install"),    QStringLiteral("uninstall"),  QStringLiteral("upgrade"),
        QStringLiteral("archive"),    QStringLiteral("unarchive"),  QStringLiteral("dismiss"),
        QStringLiteral("star"),       QStringLiteral("unstar"),     QStringLiteral("like"),
        QStringLiteral("unlike"),     QStringLiteral("follow"),     QStringLiteral("unfollow"),
        QStringLiteral("vote"),       QStringLiteral("upvote"),     QStringLiteral("downvote"),
        QStringLiteral("flag"),       QStringLiteral("unflag"),     QStringLiteral("pin"),
        QStringLiteral("unpin"),      QStringLiteral("send"),       QStringLiteral("post"),
        QStringLiteral("reply"),      QStringLiteral("comment"),    QStringLiteral("share"),
        QStringLiteral("invite"),     QStringLiteral("join"),       QStringLiteral("leave"),
        QStringLiteral("confirm"),    QStringLiteral("cancel"),     QStringLiteral("close"),
        QStringLiteral("reopen"),     QStringLiteral("resolve"),    QStringLiteral("merge"),
        QStringLiteral("import"),     QStringLiteral("upload"),     QStringLiteral("set"),
        QStringLiteral("reset"),      QStringLiteral("toggle"),     QStringLiteral("thank"),
        QStringLiteral("patrol"),     QStringLiteral("rate"),       QStringLiteral("hide"),
        QStringLiteral("unhide"),     QStringLiteral("mute"),       QStringLiteral("unmute"),
        QStringLiteral("favorite"),   QStringLiteral("favourite"),  QStringLiteral("unfavorite"),
        QStringLiteral("bookmark"),   QStringLiteral("assign"),     QStringLiteral("unassign"),
        QStringLiteral("transfer"),   QStringLiteral("pay"),        QStringLiteral("buy"),
        QStringLiteral("checkout"),   QStringLiteral("emptytrash"), QStringLiteral("deleteall")};
    return kWords;
}

// Operations that only read: views, forms (edit), histories, searches and the read modes of
// the query APIs sites expose (MediaWiki's opensearch, query and parse), and list layouts.
const QSet<QString> &readOperationWords()
{
    static const QSet<QString> kWords{QStringLiteral("view"),
                                      QStringLiteral("show"),
                                      QStringLiteral("read"),
                                      QStringLiteral("get"),
                                      QStringLiteral("list"),
                                      QStringLiteral("index"),
                                      QStringLiteral("browse"),
                                      QStringLiteral("search"),
                                      QStringLiteral("find"),
                                      QStringLiteral("query"),
                                      QStringLiteral("display"),
                                      QStringLiteral("print"),
                                      QStringLiteral("preview"),
                                      QStringLiteral("history"),
                                      QStringLiteral("info"),
                                      QStringLiteral("raw"),
                                      QStringLiteral("render"),
                                      QStringLiteral("diff"),
                                      QStringLiteral("edit"),
                                      QStringLiteral("help"),
                                      QStringLiteral("details"),
                                      QStringLiteral("detail"),
                                      QStringLiteral("open"),
                                      QStringLiteral("load"),
                                      QStringLiteral("more"),
                                      QStringLiteral("next"),
                                      QStringLiteral("prev"),
                                      QStringLiteral("previous"),
                                      QStringLiteral("page"),
                                      QStringLiteral("filter"),
                                      QStringLiteral("sort"),
                                      QStringLiteral("expand"),
                                      QStringLiteral("collapse"),
                                      QStringLiteral("opensearch"),
                                      QStringLiteral("parse"),
                                      QStringLiteral("paraminfo"),
                                      QStringLiteral("compare"),
                                      QStringLiteral("feed"),
                                      QStringLiteral("feedcontributions"),
                                      QStringLiteral("feedrecentchanges"),
                                      QStringLiteral("feedwatchlist"),
                                      QStringLiteral("expandtemplates"),
                                      QStringLiteral("sitematrix"),
                                      QStringLiteral("credits"),
                                      QStringLiteral("blame"),
                                      QStringLiteral("log"),
                                      QStringLiteral("logs"),
                                      QStringLiteral("revisions"),
                                      QStringLiteral("recent"),
                                      QStringLiteral("backlink"),
                                      QStringLiteral("backlinks"),
                                      QStringLiteral("suggest"),
                                      QStringLiteral("autocomplete"),
                                      QStringLiteral("lookup"),
                                      QStringLiteral("count"),
                                      QStringLiteral("stats"),
                                      QStringLiteral("describe"),
                                      QStringLiteral("fetch"),
                                      QStringLiteral("grid"),
                                      QStringLiteral("compact"),
                                      QStringLiteral("excerpt"),
                                      QStringLiteral("table"),
                                      QStringLiteral("tile"),
                                      QStringLiteral("tiles"),
                                      QStringLiteral("cards"),
                                      QStringLiteral("summary"),
                                      QStringLiteral("full"),
                                      QStringLiteral("thumbnail"),
                                      QStringLiteral("thumbnails"),
                                      QStringLiteral("gallery"),
                                      QStringLiteral("calendar"),
                                      QStringLiteral("month"),
                                      QStringLiteral("week"),
                                      QStringLiteral("day"),
                                      QStringLiteral("overview"),
                                      QStringLiteral("tree"),
                                      QStringLiteral("map")};
    return kWords;
}

} // namespace

OperationKind operationKind(QStringView value)
{
    const QString whole = squashed(value);
    if (whole.isEmpty())
        return OperationKind::None;
    if (std::all_of(whole.cbegin(), whole.cend(), [](QChar c) { return c.isDigit(); }))
        return OperationKind::None; // "-1", "0": a form's "no bulk action"
    if (readOperationWords().contains(whole))
        return OperationKind::Read;
    if (writeOperationWords().contains(whole))
        return OperationKind::Write;
    const QStringList words = operationWords(value);
    bool reads = false;
    for (const QString &word : words) {
        if (writeOperationWords().contains(word))
            return OperationKind::Write;
        reads = reads || readOperationWords().contains(word);
    }
    if (value.size() <= 256 && isNamedConsequence(pathSegmentConsequence(value.toString())))
        return OperationKind::Write;
    return reads ? OperationKind::Read : OperationKind::Unknown;
}

namespace {

QString decodedQueryPart(QStringView part)
{
    return QUrl::fromPercentEncoding(
        part.toString().replace(QLatin1Char('+'), QLatin1Char(' ')).toUtf8());
}

// A query string (or a form-encoded body), judged for a GET of `kind`.
WriteReason queryStringWriteReason(QStringView raw, RequestKind kind)
{
    if (raw.size() > kMaxQueryUnits)
        return WriteReason::TokenValue; // too long to read: deny-biased
    const bool asset = kind == RequestKind::Asset;
    int count = 0;
    for (const QStringView pair : raw.split(QLatin1Char('&'))) {
        if (pair.isEmpty())
            continue;
        if (++count > kMaxParameters)
            return WriteReason::TokenValue;
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        const QString name = decodedQueryPart(eq < 0 ? pair : pair.left(eq));
        const QString value = eq < 0 ? QString() : decodedQueryPart(pair.mid(eq + 1));
        if (isPaginationParameterName(name))
            continue; // a page's place in a list: opaque, and only ever read
        if (!asset && isTokenParameterName(name))
            return WriteReason::TokenParameter;
        // A name or value that reads as signing out (title=Special:UserLogout, do=logout).
        const QString squashedName = squashed(name);
        if (squashedName == QLatin1String("method") ||
            squashedName == QLatin1String("xhttpmethodoverride")) {
            const OperationKind operation = operationKind(value);
            if (operation != OperationKind::None && operation != OperationKind::Read &&
                squashed(value) != QLatin1String("head"))
                return WriteReason::MethodOverride;
            continue;
        }
        if (isOperationParameterName(name)) {
            const OperationKind operation = operationKind(value);
            const bool strong = !asset && isStrongOperationParameterName(name);
            if (operation == OperationKind::Write ||
                (strong && operation == OperationKind::Unknown))
                return WriteReason::OperationValue;
            continue;
        }
        // A name or value that reads as signing out (title=Special:UserLogout); a search's own
        // words are the visitor's text, never an operation.
        static const QSet<QString> kSearchNames{
            QStringLiteral("q"),    QStringLiteral("query"),   QStringLiteral("search"),
            QStringLiteral("s"),    QStringLiteral("keyword"), QStringLiteral("keywords"),
            QStringLiteral("term"), QStringLiteral("text"),    QStringLiteral("srsearch")};
        const bool searchText = kSearchNames.contains(squashed(name));
        if (!asset &&
            ((name.size() <= kMaxSignOutPartUnits && isSignOutSegment(name)) ||
             (!searchText && value.size() <= kMaxSignOutPartUnits && isSignOutSegment(value))))
            return WriteReason::SignOutPath;
        if (!asset && !isIdentifierParameterName(name) && isTokenShapedValue(value))
            return WriteReason::TokenValue;
    }
    return WriteReason::None;
}

} // namespace

WriteReason queryWriteReason(const QUrl &url, RequestKind kind)
{
    if (!url.hasQuery())
        return WriteReason::None;
    return queryStringWriteReason(url.query(QUrl::FullyEncoded), kind);
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

namespace {

QByteArray mediaType(const QByteArray &contentType)
{
    return contentType.split(';').value(0).trimmed().toLower();
}

bool isJsonType(const QByteArray &type)
{
    return type == "application/json" || type.endsWith("+json");
}

std::optional<StrictJson::Value> parsedJson(const QByteArray &body)
{
    StrictJson::Limits limits;
    limits.maxBytes = kMaxBodyBytes;
    limits.maxDepth = 16;
    limits.numbers = StrictJson::Numbers::Finite;
    return StrictJson::parseDocument(body, limits);
}

bool jsonRpcCallReads(const StrictJson::Value &value)
{
    if (!value.isObject() || !value.member("jsonrpc"))
        return false;
    const StrictJson::Value *method = value.member("method");
    return method && method->isString() &&
           operationKind(QString::fromUtf8(method->string)) == OperationKind::Read;
}

// The last non-empty segment of a URL's path.
QString lastSegment(const QUrl &url)
{
    const QString path = url.path(QUrl::FullyDecoded);
    const QStringList segments = path.split(QLatin1Char('/'), Qt::SkipEmptyParts);
    return segments.isEmpty() ? QString() : segments.last();
}

bool isReadEndpoint(const QString &segment)
{
    static const QSet<QString> kEndpoints{
        QStringLiteral("search"),  QStringLiteral("query"),        QStringLiteral("lookup"),
        QStringLiteral("suggest"), QStringLiteral("autocomplete"), QStringLiteral("count"),
        QStringLiteral("find"),    QStringLiteral("suggestions")};
    return kEndpoints.contains(squashed(segment));
}

} // namespace

bool jsonRpcOnlyReads(const QByteArray &body, const QByteArray &contentType)
{
    if (body.isEmpty() || body.size() > kMaxBodyBytes || !isJsonType(mediaType(contentType)))
        return false;
    const std::optional<StrictJson::Value> parsed = parsedJson(body);
    if (!parsed)
        return false;
    if (parsed->type != StrictJson::Value::Type::Array)
        return jsonRpcCallReads(*parsed);
    if (parsed->items.empty())
        return false;
    return std::all_of(parsed->items.cbegin(), parsed->items.cend(), jsonRpcCallReads);
}

bool formBodyOnlyReads(const QByteArray &body, const QByteArray &contentType)
{
    if (body.isEmpty() || body.size() > kMaxBodyBytes ||
        mediaType(contentType) != "application/x-www-form-urlencoded")
        return false;
    const QString fields = QString::fromUtf8(body);
    if (queryStringWriteReason(fields, RequestKind::PageRequest) != WriteReason::None)
        return false;
    // An operation must say it reads: a body without one (rev=11) is what a form sends.
    for (const QStringView pair : QStringView(fields).split(QLatin1Char('&'))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        if (eq > 0 && isStrongOperationParameterName(decodedQueryPart(pair.left(eq))) &&
            operationKind(decodedQueryPart(pair.mid(eq + 1))) == OperationKind::Read)
            return true;
    }
    return false;
}

bool bodyOnlyReads(const Request &request)
{
    if (!request.body || request.kind != RequestKind::PageRequest)
        return false;
    const QByteArray &body = *request.body;
    if (graphQlIsQuery(body, request.contentType) || jsonRpcOnlyReads(body, request.contentType) ||
        formBodyOnlyReads(body, request.contentType))
        return true;
    // A search or lookup endpoint that takes its filters as JSON.
    return !body.isEmpty() && body.size() <= kMaxBodyBytes &&
           isJsonType(mediaType(request.contentType)) && parsedJson(body).has_value() &&
           isReadEndpoint(lastSegment(request.url));
}

Judgement judge(const Request &request)
{
    if (request.kind == RequestKind::Beacon)
        return {Verdict::Dropped, WriteReason::Method};
    if (!isReadMethod(request.method) && !(request.method == "POST" && bodyOnlyReads(request)))
        return {Verdict::Write, WriteReason::Method};
    const bool asset = request.kind == RequestKind::Asset;
    const QString path = request.url.path(QUrl::FullyEncoded);
    QStringView last;
    for (const QStringView segment : QStringView(path).split(QLatin1Char('/'))) {
        if (segment.isEmpty())
            continue;
        // An asset named for signing out (/img/logout.svg) is an image; /logout is not.
        if (isSignOutSegment(segment) && (!asset || !segment.contains(QLatin1Char('.'))))
            return {Verdict::Write, WriteReason::SignOutPath};
        last = segment;
    }
    const bool endpoint =
        request.kind == RequestKind::Document || request.kind == RequestKind::PageRequest;
    if (endpoint && !last.isEmpty() && isWriteEndpoint(last))
        return {Verdict::Write, WriteReason::WriteEndpoint};
    const WriteReason query = queryWriteReason(request.url, request.kind);
    if (query != WriteReason::None)
        return {Verdict::Write, query};
    return {Verdict::Read, WriteReason::None};
}

namespace {

bool isPlainSegment(const QString &segment)
{
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z][A-Za-z0-9._-]*$"));
    return !segment.isEmpty() && segment.size() <= RefusedWrite::kMaxSegmentUnits &&
           plain.match(segment).hasMatch() && !isTokenShapedValue(segment);
}

// The most decisive consequence any of `words` names (kConsequencePriority), or Unknown.
BrowserActionConsequence mostDecisive(const QStringList &texts)
{
    BrowserActionConsequence best = BrowserActionConsequence::Unknown;
    int bestPriority = int(std::size(kConsequencePriority));
    for (const QString &text : texts) {
        if (text.isEmpty() || text.size() > kMaxSignOutPartUnits)
            continue;
        const BrowserActionConsequence named = pathSegmentConsequence(text);
        for (int p = 0; p < bestPriority; ++p) {
            if (kConsequencePriority[p] == named) {
                bestPriority = p;
                best = named;
            }
        }
    }
    return best;
}

// The operation values of a query string or a form body.
QStringList operationValues(QStringView fields)
{
    QStringList values;
    for (const QStringView pair : fields.split(QLatin1Char('&'))) {
        const qsizetype eq = pair.indexOf(QLatin1Char('='));
        if (eq > 0 && isOperationParameterName(decodedQueryPart(pair.left(eq))))
            values.append(decodedQueryPart(pair.mid(eq + 1)));
    }
    return values;
}

} // namespace

RefusedWrite describeRefusal(const Request &request)
{
    RefusedWrite summary;
    static const QList<QByteArray> kMethods{"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"};
    summary.method = kMethods.contains(request.method) ? request.method : QByteArray("OTHER");
    const QStringList segments =
        request.url.path(QUrl::FullyDecoded).split(QLatin1Char('/'), Qt::SkipEmptyParts);
    if (!segments.isEmpty() && isPlainSegment(segments.last()))
        summary.segment = segments.last();
    // What the address names, its query first (action=delete), then its path (/api/delete),
    // then what a shown form body names as its operation; a DELETE deletes.
    QStringList named;
    named.append(segments.mid(qMax(0, int(segments.size()) - ElementFacts::kMaxTargetSegments)));
    if (request.body && request.body->size() <= kMaxBodyBytes &&
        mediaType(request.contentType) == "application/x-www-form-urlencoded")
        named.append(operationValues(QString::fromUtf8(*request.body)));
    BrowserActionConsequence best = mostDecisive(named);
    if (request.method == "DELETE" && !isNamedConsequence(best))
        best = BrowserActionConsequence::Destructive;
    // The query's reading (action=delete, a token) where it is more decisive.
    const BrowserActionConsequence query = queryConsequenceOf(request.url);
    for (const BrowserActionConsequence consequence : kConsequencePriority) {
        if (consequence == best || consequence == query) {
            summary.consequence = consequence;
            return summary;
        }
    }
    return summary;
}

bool isValidRefusedWrite(const RefusedWrite &summary)
{
    static const QList<QByteArray> kMethods{"GET",   "HEAD",   "POST", "PUT",
                                            "PATCH", "DELETE", "OTHER"};
    return kMethods.contains(summary.method) &&
           (summary.segment.isEmpty() || isPlainSegment(summary.segment)) &&
           isNamedConsequence(summary.consequence);
}

} // namespace veetbot::WriteGuard
